-- budgets_charge_holds(held, at, time_zone): counts the holds `held` as spent, at the most
-- they held: a call whose worker died, or whose hold outlived any call, may have been answered
-- and billed. Each hold's entries are taken from its counters' reservations and added to their
-- spending (`budgets_give_back`, counters locked in (key, period) order), its call
-- is added to the usage of the day it was made, of who pays for its run (`budgets_charge`) and
-- of the model its entries name, and the hold is removed. Holds already gone, or locked by
-- another transaction, are left out. Returns one row per hold charged: its run and call (as
-- its entries name them), and what it was counted as.

CREATE OR REPLACE FUNCTION budgets_charge_holds(held bigint[], at timestamptz, time_zone text)
RETURNS TABLE (run text, call text, cost numeric, tokens_in bigint, tokens_out bigint)
LANGUAGE plpgsql AS $$
DECLARE
    -- The holds charged, in id order: hold i is g_entries[i], made at g_made[i].
    g_ids bigint[];
    g_entries jsonb[];
    g_made timestamptz[];
BEGIN
    WITH gone AS (
        DELETE FROM budgets_hold h
        WHERE h.id IN (SELECT l.id FROM budgets_hold l WHERE l.id = ANY (held)
                       ORDER BY l.id FOR UPDATE SKIP LOCKED)
        RETURNING h.id, h.entries, h.created_at
    )
    SELECT array_agg(gone.id ORDER BY gone.id), array_agg(gone.entries ORDER BY gone.id),
           array_agg(gone.created_at ORDER BY gone.id)
    INTO g_ids, g_entries, g_made
    FROM gone;
    IF g_ids IS NULL THEN
        RETURN;
    END IF;

    PERFORM budgets_give_back(g_entries, at, true, 0, 0, 0);

    INSERT INTO budgets_usage AS u (day, user_id, token_id, model, calls, tokens_in, tokens_out,
                                    cost_usd)
    SELECT (g.made AT TIME ZONE time_zone)::date, ch.user_id, ch.token_id,
           g.entries->0->>'model', count(*), sum((g.entries->0->>'tokens_in')::bigint),
           sum((g.entries->0->>'tokens_out')::bigint), sum((g.entries->0->>'cost')::numeric)
    FROM unnest(g_entries, g_made) g(entries, made)
         LEFT JOIN budgets_charge ch ON ch.subject = g.entries->0->>'run'
    WHERE COALESCE(g.entries->0->>'model', '') <> ''
    GROUP BY 1, 2, 3, 4
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (day, user_id, token_id, model) DO UPDATE SET
        calls = u.calls + EXCLUDED.calls,
        tokens_in = u.tokens_in + EXCLUDED.tokens_in,
        tokens_out = u.tokens_out + EXCLUDED.tokens_out,
        cost_usd = u.cost_usd + EXCLUDED.cost_usd;

    RETURN QUERY
        SELECT g.entries->0->>'run', g.entries->0->>'call', (g.entries->0->>'cost')::numeric,
               COALESCE((g.entries->0->>'tokens_in')::bigint, 0),
               COALESCE((g.entries->0->>'tokens_out')::bigint, 0)
        FROM unnest(g_entries) WITH ORDINALITY AS g(entries, n) ORDER BY g.n;
END;
$$;
