"""The two statements every LLM call costs the budgets: `budgets_reserve` before the call and
`budgets_settle` after it. Each locks the counters it touches in one fixed order (key, period),
so concurrent callers queue on a counter instead of deadlocking, and checks and changes them in
one statement: a reservation either fits every limit and is taken from every counter, or
changes nothing and names the first limit it would pass."""

from django.db import migrations

RESERVE = r"""
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
"""

SETTLE = r"""
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
"""

RELEASE = r"""
CREATE OR REPLACE FUNCTION budgets_release_stale(before timestamptz)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    h record;
    w jsonb;
    released integer := 0;
BEGIN
    FOR h IN SELECT id, entries FROM budgets_hold WHERE created_at < before
             ORDER BY id FOR UPDATE SKIP LOCKED
    LOOP
        FOR w IN SELECT e FROM jsonb_array_elements(h.entries) e
                 ORDER BY e->>'key', e->>'period'
        LOOP
            UPDATE budgets_counter SET
                reserved_cost_usd = GREATEST(reserved_cost_usd - (w->>'cost')::numeric, 0),
                reserved_tokens = GREATEST(reserved_tokens - (w->>'tokens')::bigint, 0),
                reserved_calls = GREATEST(reserved_calls - (w->>'calls')::int, 0)
            WHERE key = w->>'key' AND period = w->>'period';
        END LOOP;
        DELETE FROM budgets_hold WHERE id = h.id;
        released := released + 1;
    END LOOP;
    RETURN released;
END;
$$;
"""


class Migration(migrations.Migration):
    dependencies = [("budgets", "0001_budgets_spending_limits")]

    operations = [
        migrations.RunSQL(RESERVE, "DROP FUNCTION IF EXISTS budgets_reserve(jsonb, timestamptz);"),
        migrations.RunSQL(
            SETTLE,
            "DROP FUNCTION IF EXISTS budgets_settle(bigint, jsonb, numeric, bigint, int, "
            "timestamptz, date, bigint, bigint, text, bigint, bigint);",
        ),
        migrations.RunSQL(
            RELEASE, "DROP FUNCTION IF EXISTS budgets_release_stale(timestamptz);"
        ),
    ]
