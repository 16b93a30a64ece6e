"""`budgets_reserve_many`: the calls of one step reserved in one statement. Takes a list of
calls (each the entries `budgets_reserve` takes) and reserves them in order, each only if it
fits every limit after the ones before it, stopping at the first that does not: one row per
call reserved (its hold), then, if one did not fit, a row naming the first limit it would pass.
The calls `skip` marks true (an earlier run already made them) are left out.
Locks every counter the calls touch in the fixed (key, period) order first, as the other
functions do, so it queues behind them instead of deadlocking."""

from django.db import migrations

RESERVE_MANY = r"""
DROP FUNCTION IF EXISTS budgets_reserve_many(jsonb, timestamptz);
CREATE OR REPLACE FUNCTION budgets_reserve_many(wanted jsonb, at timestamptz,
                                                skip boolean[] DEFAULT NULL)
RETURNS TABLE (call_index int, hold_id bigint, b_key text, b_period text, b_unit text,
               b_used numeric, b_limit numeric)
LANGUAGE plpgsql AS $$
DECLARE
    call_entries jsonb;
    idx int;
    w jsonb;
    c budgets_counter%ROWTYPE;
    new_hold bigint;
BEGIN
    INSERT INTO budgets_counter (key, period, used_cost_usd, used_tokens, used_calls,
                                 reserved_cost_usd, reserved_tokens, reserved_calls, updated_at)
    SELECT DISTINCT e.entry->>'key', e.entry->>'period', 0, 0, 0, 0, 0, 0, at
    FROM jsonb_array_elements(wanted) WITH ORDINALITY AS calls(elem, n),
         jsonb_array_elements(calls.elem) AS e(entry)
    WHERE NOT COALESCE(skip[calls.n::int], false)
    ORDER BY 1, 2
    ON CONFLICT (key, period) DO NOTHING;

    FOR w IN SELECT DISTINCT ON (e.entry->>'key', e.entry->>'period') e.entry
             FROM jsonb_array_elements(wanted) WITH ORDINALITY AS calls(elem, n),
                  jsonb_array_elements(calls.elem) AS e(entry)
             WHERE NOT COALESCE(skip[calls.n::int], false)
             ORDER BY e.entry->>'key', e.entry->>'period'
    LOOP
        PERFORM 1 FROM budgets_counter
        WHERE key = w->>'key' AND period = w->>'period' FOR UPDATE;
    END LOOP;

    FOR call_entries, idx IN
        SELECT calls.elem, (calls.n - 1)::int
        FROM jsonb_array_elements(wanted) WITH ORDINALITY AS calls(elem, n)
        WHERE NOT COALESCE(skip[calls.n::int], false)
        ORDER BY calls.n
    LOOP
        FOR w IN SELECT e FROM jsonb_array_elements(call_entries) e
                 ORDER BY e->>'key', e->>'period'
        LOOP
            SELECT * INTO c FROM budgets_counter
            WHERE key = w->>'key' AND period = w->>'period';
            IF (w->>'limit_cost') IS NOT NULL AND
               c.used_cost_usd + c.reserved_cost_usd + (w->>'cost')::numeric
                   > (w->>'limit_cost')::numeric THEN
                RETURN QUERY SELECT idx, NULL::bigint, c.key::text, c.period::text,
                    'cost'::text, c.used_cost_usd + c.reserved_cost_usd,
                    (w->>'limit_cost')::numeric;
                RETURN;
            END IF;
            IF (w->>'limit_tokens') IS NOT NULL AND
               c.used_tokens + c.reserved_tokens + (w->>'tokens')::bigint
                   > (w->>'limit_tokens')::bigint THEN
                RETURN QUERY SELECT idx, NULL::bigint, c.key::text, c.period::text,
                    'tokens'::text, (c.used_tokens + c.reserved_tokens)::numeric,
                    (w->>'limit_tokens')::numeric;
                RETURN;
            END IF;
            IF (w->>'limit_calls') IS NOT NULL AND
               c.used_calls + c.reserved_calls + (w->>'calls')::int
                   > (w->>'limit_calls')::int THEN
                RETURN QUERY SELECT idx, NULL::bigint, c.key::text, c.period::text,
                    'calls'::text, (c.used_calls + c.reserved_calls)::numeric,
                    (w->>'limit_calls')::numeric;
                RETURN;
            END IF;
        END LOOP;

        FOR w IN SELECT e FROM jsonb_array_elements(call_entries) e
                 ORDER BY e->>'key', e->>'period'
        LOOP
            UPDATE budgets_counter SET
                reserved_cost_usd = reserved_cost_usd + (w->>'cost')::numeric,
                reserved_tokens = reserved_tokens + (w->>'tokens')::bigint,
                reserved_calls = reserved_calls + (w->>'calls')::int,
                updated_at = at
            WHERE key = w->>'key' AND period = w->>'period';
        END LOOP;
        INSERT INTO budgets_hold (entries, created_at) VALUES (call_entries, at)
        RETURNING id INTO new_hold;
        RETURN QUERY SELECT idx, new_hold, NULL::text, NULL::text, NULL::text, NULL::numeric,
            NULL::numeric;
    END LOOP;
END;
$$;
"""


class Migration(migrations.Migration):
    dependencies = [("budgets", "0004_budgets_debate_budget_labels")]

    operations = [
        migrations.RunSQL(
            RESERVE_MANY,
            "DROP FUNCTION IF EXISTS budgets_reserve_many(jsonb, timestamptz, boolean[]);",
        ),
    ]
