-- budgets_reserve(wanted, at): before an LLM call, takes its estimated cost, tokens and one
-- call from every counter the spender is limited by (`wanted`: one entry per counter, with its
-- limits), in one statement. The counters are locked in one fixed order (key, period), so
-- concurrent callers queue on a counter instead of deadlocking. The reservation either fits
-- every limit and is taken from every counter (one row: the new hold), or changes nothing and
-- names the first limit it would pass.

CREATE OR REPLACE FUNCTION budgets_reserve(wanted jsonb, at timestamptz)
RETURNS TABLE (hold_id bigint, b_key text, b_period text, b_unit text, b_used numeric,
               b_limit numeric)
LANGUAGE plpgsql AS $$
DECLARE
    w jsonb;
    c budgets_counter%ROWTYPE;
    new_hold bigint;
BEGIN
    INSERT INTO budgets_counter (key, period, used_cost_usd, used_tokens, used_calls,
                                 reserved_cost_usd, reserved_tokens, reserved_calls, updated_at)
    SELECT e->>'key', e->>'period', 0, 0, 0, 0, 0, 0, at
    FROM jsonb_array_elements(wanted) e
    ORDER BY e->>'key', e->>'period'
    ON CONFLICT (key, period) DO NOTHING;

    FOR w IN SELECT e FROM jsonb_array_elements(wanted) e ORDER BY e->>'key', e->>'period'
    LOOP
        SELECT * INTO c FROM budgets_counter
        WHERE key = w->>'key' AND period = w->>'period' FOR UPDATE;
        IF (w->>'limit_cost') IS NOT NULL AND
           c.used_cost_usd + c.reserved_cost_usd + (w->>'cost')::numeric
               > (w->>'limit_cost')::numeric THEN
            RETURN QUERY SELECT NULL::bigint, c.key::text, c.period::text, 'cost'::text,
                c.used_cost_usd + c.reserved_cost_usd, (w->>'limit_cost')::numeric;
            RETURN;
        END IF;
        IF (w->>'limit_tokens') IS NOT NULL AND
           c.used_tokens + c.reserved_tokens + (w->>'tokens')::bigint
               > (w->>'limit_tokens')::bigint THEN
            RETURN QUERY SELECT NULL::bigint, c.key::text, c.period::text, 'tokens'::text,
                (c.used_tokens + c.reserved_tokens)::numeric, (w->>'limit_tokens')::numeric;
            RETURN;
        END IF;
        IF (w->>'limit_calls') IS NOT NULL AND
           c.used_calls + c.reserved_calls + (w->>'calls')::int > (w->>'limit_calls')::int THEN
            RETURN QUERY SELECT NULL::bigint, c.key::text, c.period::text, 'calls'::text,
                (c.used_calls + c.reserved_calls)::numeric, (w->>'limit_calls')::numeric;
            RETURN;
        END IF;
    END LOOP;

    FOR w IN SELECT e FROM jsonb_array_elements(wanted) e ORDER BY e->>'key', e->>'period'
    LOOP
        UPDATE budgets_counter SET
            reserved_cost_usd = reserved_cost_usd + (w->>'cost')::numeric,
            reserved_tokens = reserved_tokens + (w->>'tokens')::bigint,
            reserved_calls = reserved_calls + (w->>'calls')::int,
            updated_at = at
        WHERE key = w->>'key' AND period = w->>'period';
    END LOOP;
    INSERT INTO budgets_hold (entries, created_at) VALUES (wanted, at) RETURNING id INTO new_hold;
    RETURN QUERY SELECT new_hold, NULL::text, NULL::text, NULL::text, NULL::numeric,
        NULL::numeric;
END;
$$;
