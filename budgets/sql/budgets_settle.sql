-- budgets_settle(...): after an LLM call, gives its hold back and counts what it spent on the
-- counters `spent` names, and on the usage per day, user, token and model; one statement,
-- locking the counters in (key, period) order as `budgets_reserve` does.

CREATE OR REPLACE FUNCTION budgets_settle(
    held bigint, spent jsonb, cost numeric, tokens bigint, calls int, at timestamptz,
    usage_day date, usage_user bigint, usage_token bigint, usage_model text,
    tokens_in bigint, tokens_out bigint)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    w jsonb;
    held_entries jsonb;
BEGIN
    -- The hold's own entries are released; a hold already released (its worker was taken for
    -- dead) releases nothing, and the spending still counts, on the counters `spent` names.
    DELETE FROM budgets_hold WHERE id = held RETURNING entries INTO held_entries;
    FOR w IN SELECT e FROM jsonb_array_elements(spent) e ORDER BY e->>'key', e->>'period'
    LOOP
        INSERT INTO budgets_counter AS c (key, period, used_cost_usd, used_tokens, used_calls,
                                          reserved_cost_usd, reserved_tokens, reserved_calls,
                                          updated_at)
        VALUES (w->>'key', w->>'period', cost, tokens, calls, 0, 0, 0, at)
        ON CONFLICT (key, period) DO UPDATE SET
            used_cost_usd = c.used_cost_usd + cost,
            used_tokens = c.used_tokens + tokens,
            used_calls = c.used_calls + calls,
            reserved_cost_usd = GREATEST(c.reserved_cost_usd - CASE WHEN held_entries IS NULL
                THEN 0 ELSE (w->>'cost')::numeric END, 0),
            reserved_tokens = GREATEST(c.reserved_tokens - CASE WHEN held_entries IS NULL
                THEN 0 ELSE (w->>'tokens')::bigint END, 0),
            reserved_calls = GREATEST(c.reserved_calls - CASE WHEN held_entries IS NULL
                THEN 0 ELSE (w->>'calls')::int END, 0),
            updated_at = at;
    END LOOP;
    IF usage_model IS NOT NULL THEN
        INSERT INTO budgets_usage AS u (day, user_id, token_id, model, calls, tokens_in,
                                        tokens_out, cost_usd)
        VALUES (usage_day, usage_user, usage_token, usage_model, calls, tokens_in, tokens_out,
                cost)
        ON CONFLICT (day, user_id, token_id, model) DO UPDATE SET
            calls = u.calls + EXCLUDED.calls,
            tokens_in = u.tokens_in + EXCLUDED.tokens_in,
            tokens_out = u.tokens_out + EXCLUDED.tokens_out,
            cost_usd = u.cost_usd + EXCLUDED.cost_usd;
    END IF;
END;
$$;
