-- onetrip_refuse(message): stops the statement it is evaluated in with `message` (SQLSTATE
-- OT001), so that a statement of several writes (`debates.onetrip`) can check, once its parts
-- have run, a condition they were all made on (the debate still running, say) and, when it
-- does not hold, undo them all, as a transaction rolled back would.

CREATE OR REPLACE FUNCTION onetrip_refuse(message text) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    RAISE EXCEPTION USING MESSAGE = message, ERRCODE = 'OT001';
END;
$$;
