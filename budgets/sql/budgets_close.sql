-- budgets_close(closing, at): a debate (run) admitted against the account limits
-- (`budgets.services.admit`) has ended: what its admission held on the counters of its user,
-- token and installation is given back, and what it spent (its own counter, key `closing`,
-- period 'ever') is added to their spending in its place. Counters locked in (key, period)
-- order, its own first (its key sorts before every account key). Its admission holds are
-- removed. Nothing happens to a debate with no admission (never admitted, or closed already).
-- Returns how many admission holds were closed.

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

    PERFORM 1 FROM budgets_counter c
    WHERE (c.key, c.period) IN (SELECT e->>'key', e->>'period'
                                FROM unnest(g_entries) g(entries),
                                     jsonb_array_elements(g.entries) e)
    ORDER BY c.key, c.period FOR UPDATE;

    UPDATE budgets_counter c SET
        used_cost_usd = c.used_cost_usd + COALESCE(own.used_cost_usd, 0),
        used_tokens = c.used_tokens + COALESCE(own.used_tokens, 0),
        used_calls = c.used_calls + COALESCE(own.used_calls, 0),
        reserved_cost_usd = GREATEST(c.reserved_cost_usd - x.cost, 0),
        reserved_tokens = GREATEST(c.reserved_tokens - x.tokens, 0),
        reserved_calls = GREATEST(c.reserved_calls - x.calls, 0),
        updated_at = at
    FROM (SELECT e->>'key' AS key, e->>'period' AS period,
                 sum((e->>'cost')::numeric) AS cost, sum((e->>'tokens')::bigint) AS tokens,
                 sum((e->>'calls')::int) AS calls
          FROM unnest(g_entries) g(entries), jsonb_array_elements(g.entries) e
          GROUP BY 1, 2) x
    WHERE c.key = x.key AND c.period = x.period;
    RETURN cardinality(g_entries);
END;
$$;
