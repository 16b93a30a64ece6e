-- analytics_count_debate(): the trigger on debates_debate that keeps the analytics roll-ups up
-- to date (created by analytics' migrations, for a debate inserted finished, for a change of
-- what the roll-ups read while it is or was finished, and for a deletion). It takes away what
-- the debate added before (kept in analytics_debatecount) and adds what it adds now, in the
-- statement that changed it: the debate's row lock, held since, orders changes to one debate.

CREATE OR REPLACE FUNCTION analytics_count_debate() RETURNS trigger
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    counted uuid;
    zone text;
    before jsonb;
    after jsonb;
BEGIN
    IF TG_OP = 'DELETE' THEN
        counted := OLD.id;
    ELSE
        counted := NEW.id;
        IF NEW.status IN ('completed', 'failed') THEN
            SELECT s.time_zone INTO zone FROM analytics_rollupstate s ORDER BY s.id LIMIT 1;
            after := analytics_debate_parts(
                NEW,
                COALESCE(zone, 'UTC'),
                (SELECT c.calls FROM analytics_debate_calls(NEW.id, NEW.id) c),
                (SELECT a.agents FROM analytics_debate_agents(NEW.id, NEW.id) a)
            );
        END IF;
    END IF;
    SELECT c.parts INTO before FROM analytics_debatecount c WHERE c.debate_id = counted;
    IF before IS NOT DISTINCT FROM after THEN
        RETURN NULL;
    END IF;
    PERFORM analytics_add(before, after);
    IF after IS NULL THEN
        DELETE FROM analytics_debatecount c WHERE c.debate_id = counted;
    ELSE
        INSERT INTO analytics_debatecount AS c (debate_id, parts) VALUES (counted, after)
        ON CONFLICT (debate_id) DO UPDATE SET parts = excluded.parts;
    END IF;
    RETURN NULL;
END;
$$;
