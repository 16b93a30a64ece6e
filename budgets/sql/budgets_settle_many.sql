-- budgets_settle_many(...): settles several calls of one spender at once, with the effect of
-- one `budgets_settle` per call: one DELETE of their holds, one upsert of the counters (in
-- (key, period) order) and one of the usage rows.

CREATE OR REPLACE FUNCTION budgets_settle_many(
    held bigint[], spent jsonb[], cost numeric[], tokens bigint[], calls int[], at timestamptz,
    usage_day date[], usage_user bigint, usage_token bigint, usage_model text[],
    tokens_in bigint[], tokens_out bigint[])
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    released bigint[];
BEGIN
    -- Element i of each array is call i. A call's hold gives its entries back; a hold already
    -- released (its worker was taken for dead), or none, gives nothing back, and the spending
    -- still counts, on the counters `spent` names. A hold named twice gives back once.
    WITH gone AS (DELETE FROM budgets_hold WHERE id = ANY (held) RETURNING id)
    SELECT array_agg(id) INTO released FROM gone;

    INSERT INTO budgets_counter AS c (key, period, used_cost_usd, used_tokens, used_calls,
                                      reserved_cost_usd, reserved_tokens, reserved_calls,
                                      updated_at)
    SELECT e.entry->>'key', e.entry->>'period', sum(round(cost[i.n], 8)), sum(tokens[i.n]),
           sum(calls[i.n]), 0, 0, 0, at
    FROM generate_subscripts(spent, 1) AS i(n), jsonb_array_elements(spent[i.n]) AS e(entry)
    GROUP BY 1, 2
    ORDER BY 1, 2
    ON CONFLICT (key, period) DO UPDATE SET
        used_cost_usd = c.used_cost_usd + EXCLUDED.used_cost_usd,
        used_tokens = c.used_tokens + EXCLUDED.used_tokens,
        used_calls = c.used_calls + EXCLUDED.used_calls,
        (reserved_cost_usd, reserved_tokens, reserved_calls) = (
            -- What one `budgets_settle` gives back for an entry (`GREATEST(reserved - cost, 0)`,
            -- stored in numeric(16,8)): its cost rounded to 8 decimals, halves down
            -- (`reserved + cost` and `used + cost` round halves up). Amounts are never
            -- negative, so call after call this is their sum, floored once.
            SELECT GREATEST(c.reserved_cost_usd
                            - coalesce(sum(ceil((x.entry->>'cost')::numeric * 1e8 - 0.5) / 1e8),
                                       0),
                            0),
                   GREATEST(c.reserved_tokens - coalesce(sum((x.entry->>'tokens')::bigint), 0),
                            0),
                   GREATEST(c.reserved_calls - coalesce(sum((x.entry->>'calls')::int), 0), 0)
            FROM generate_subscripts(spent, 1) AS j(n),
                 jsonb_array_elements(spent[j.n]) AS x(entry)
            WHERE held[j.n] = ANY (released) AND array_position(held, held[j.n]) = j.n
              AND x.entry->>'key' = c.key AND x.entry->>'period' = c.period),
        updated_at = at;

    INSERT INTO budgets_usage AS u (day, user_id, token_id, model, calls, tokens_in,
                                    tokens_out, cost_usd)
    SELECT usage_day[i.n], usage_user, usage_token, usage_model[i.n], sum(calls[i.n]),
           sum(tokens_in[i.n]), sum(tokens_out[i.n]), sum(round(cost[i.n], 8))
    FROM generate_subscripts(usage_model, 1) AS i(n)
    WHERE usage_model[i.n] IS NOT NULL
    GROUP BY usage_day[i.n], usage_model[i.n]
    ORDER BY usage_day[i.n], usage_model[i.n]
    ON CONFLICT (day, user_id, token_id, model) DO UPDATE SET
        calls = u.calls + EXCLUDED.calls,
        tokens_in = u.tokens_in + EXCLUDED.tokens_in,
        tokens_out = u.tokens_out + EXCLUDED.tokens_out,
        cost_usd = u.cost_usd + EXCLUDED.cost_usd;
END;
$$;
