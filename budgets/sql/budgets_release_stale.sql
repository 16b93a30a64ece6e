-- budgets_release_stale(before): gives back the holds made before `before` (their worker died
-- before settling them), skipping holds another transaction has locked; returns how many.

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
