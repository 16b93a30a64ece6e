-- budgets_give_back(g_entries, at, as_held, own_cost, own_tokens, own_calls): holds whose
-- entries are `g_entries` (already removed by the caller) give back what they reserved on their
-- counters, and what was spent in their place is added to those counters' spending: with
-- `as_held`, each entry's own amount (a call counted at the most it held, `budgets_charge_holds`);
-- otherwise `own_*` on every counter the entries name (an admission closed, counted as what its
-- debate spent, `budgets_close`). Counters locked in (key, period) order, as every function
-- locks them.

CREATE OR REPLACE FUNCTION budgets_give_back(
    g_entries jsonb[], at timestamptz, as_held boolean,
    own_cost numeric, own_tokens bigint, own_calls integer
)
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM budgets_counter c
    WHERE (c.key, c.period) IN (SELECT e->>'key', e->>'period'
                                FROM unnest(g_entries) g(entries),
                                     jsonb_array_elements(g.entries) e)
    ORDER BY c.key, c.period FOR UPDATE;

    UPDATE budgets_counter c SET
        used_cost_usd = c.used_cost_usd + CASE WHEN as_held THEN x.cost ELSE own_cost END,
        used_tokens = c.used_tokens + CASE WHEN as_held THEN x.tokens ELSE own_tokens END,
        used_calls = c.used_calls + CASE WHEN as_held THEN x.calls ELSE own_calls END,
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
END;
$$;
