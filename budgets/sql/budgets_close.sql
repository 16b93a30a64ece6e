-- budgets_close(closing, at): a debate (run) admitted against the account limits
-- (`budgets.services.admit`) has ended: what its admission held on the counters of its user,
-- token and installation is given back, and what it spent (its own counter, key `closing`,
-- period 'ever') is added to their spending in its place (`budgets_give_back`). Counters
-- locked in (key, period) order, its own first (its key sorts before every account key). Its
-- admission holds are removed. Nothing happens to a debate with no admission (never admitted,
-- or closed already). Returns how many admission holds were closed.

CREATE OR REPLACE FUNCTION budgets_close(closing text, at timestamptz)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    g_entries jsonb[];
    own budgets_counter%ROWTYPE;
BEGIN
    SELECT * INTO own FROM budgets_counter WHERE key = closing AND period = 'ever' FOR UPDATE;
    WITH gone AS (
        DELETE FROM budgets_hold h
        WHERE h.id IN (SELECT l.id FROM budgets_hold l WHERE l.admits = closing
                       ORDER BY l.id FOR UPDATE)
        RETURNING h.entries
    )
    SELECT array_agg(gone.entries) INTO g_entries FROM gone;
    IF g_entries IS NULL THEN
        RETURN 0;
    END IF;

    PERFORM budgets_give_back(
        g_entries, at, false, COALESCE(own.used_cost_usd, 0), COALESCE(own.used_tokens, 0),
        COALESCE(own.used_calls, 0)
    );
    RETURN cardinality(g_entries);
END;
$$;
