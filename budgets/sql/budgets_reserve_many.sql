-- budgets_reserve_many(wanted, at, skip): the calls of one step reserved in one statement.
-- `wanted` lists calls (each the entries `budgets_reserve` takes); they are reserved in order,
-- each only if it fits every limit after the ones before it, stopping at the first that does
-- not: one row per call reserved (its hold), then, if one did not fit, a row naming the first
-- limit it would pass. The calls `skip` marks true (an earlier run already made them) are left
-- out.
--
-- Set-based: it creates the missing counters, locks every counter the calls touch with one
-- SELECT in (key, period) order (the order every function locks them in), decides in PL/pgSQL
-- which leading calls fit, then adds their reservations with one UPDATE and stores their holds
-- with one INSERT. Costs are kept with 8 decimals (numeric(16,8)) and rounded as a loop of one
-- UPDATE per call would round them. A counter is looked up by its key and period joined by the
-- unit separator (U+001F), which neither holds.

CREATE OR REPLACE FUNCTION budgets_reserve_many(wanted jsonb, at timestamptz,
                                                skip boolean[] DEFAULT NULL)
RETURNS TABLE (call_index int, hold_id bigint, b_key text, b_period text, b_unit text,
               b_used numeric, b_limit numeric)
LANGUAGE plpgsql AS $$
DECLARE
    -- The counters the calls touch, in (key, period) order: slot i is c_key[i], c_period[i]
    -- (and c_pair[i], the two in one text, to find an entry's slot).
    c_key text[];
    c_period text[];
    c_pair text[];
    c_id bigint[];
    c_used_cost numeric[];
    c_used_tokens bigint[];
    c_used_calls int[];
    -- Their reservations, as the calls that fit leave them, and what those calls add.
    c_res_cost numeric[];
    c_res_tokens bigint[];
    c_res_calls int[];
    c_add_cost numeric[];
    c_add_tokens bigint[];
    c_add_calls int[];
    c_touched boolean[];
    counter record;
    slots int;
    slot int;
    call_entries jsonb;
    entry jsonb;
    new_cost numeric;
    lim numeric;
    fit int[] := '{}';
    hold_ids bigint[];
    -- The first call that does not fit, and the limit it would pass: its slot * 4 + the
    -- unit's rank (cost 1, tokens 2, calls 3), the lowest of the call's entries.
    refused int;
    refusal int;
    r_unit text;
    r_used numeric;
    r_limit numeric;
BEGIN
    WITH pairs AS (
        SELECT DISTINCT e.entry->>'key' AS k, e.entry->>'period' AS p
        FROM jsonb_array_elements(wanted) WITH ORDINALITY AS calls(elem, n),
             jsonb_array_elements(calls.elem) AS e(entry)
        WHERE NOT COALESCE(skip[calls.n::int], false)
    ), created AS (
        INSERT INTO budgets_counter (key, period, used_cost_usd, used_tokens, used_calls,
                                     reserved_cost_usd, reserved_tokens, reserved_calls,
                                     updated_at)
        SELECT k, p, 0, 0, 0, 0, 0, 0, at FROM pairs ORDER BY k, p
        ON CONFLICT (key, period) DO NOTHING
    )
    SELECT array_agg(k ORDER BY k, p), array_agg(p ORDER BY k, p),
           array_agg(k || E'\x1f' || p ORDER BY k, p)
    INTO c_key, c_period, c_pair
    FROM pairs;

    slots := coalesce(array_length(c_pair, 1), 0);
    c_id := array_fill(NULL::bigint, ARRAY[slots]);
    c_used_cost := array_fill(NULL::numeric, ARRAY[slots]);
    c_used_tokens := array_fill(NULL::bigint, ARRAY[slots]);
    c_used_calls := array_fill(NULL::int, ARRAY[slots]);
    c_res_cost := c_used_cost;
    c_res_tokens := c_used_tokens;
    c_res_calls := c_used_calls;
    c_add_cost := array_fill(0::numeric, ARRAY[slots]);
    c_add_tokens := array_fill(0::bigint, ARRAY[slots]);
    c_add_calls := array_fill(0, ARRAY[slots]);
    c_touched := array_fill(false, ARRAY[slots]);

    -- One statement locks them all, in (key, period) order, each found by its key.
    FOR counter IN
        SELECT w.slot::int AS slot, b.id, b.used_cost_usd, b.used_tokens, b.used_calls,
               b.reserved_cost_usd, b.reserved_tokens, b.reserved_calls
        FROM unnest(c_key, c_period) WITH ORDINALITY AS w(k, p, slot)
             JOIN budgets_counter b ON b.key = w.k AND b.period = w.p
        ORDER BY w.slot
        FOR UPDATE OF b
    LOOP
        c_id[counter.slot] := counter.id;
        c_used_cost[counter.slot] := counter.used_cost_usd;
        c_used_tokens[counter.slot] := counter.used_tokens;
        c_used_calls[counter.slot] := counter.used_calls;
        c_res_cost[counter.slot] := counter.reserved_cost_usd;
        c_res_tokens[counter.slot] := counter.reserved_tokens;
        c_res_calls[counter.slot] := counter.reserved_calls;
    END LOOP;

    -- Call by call, as the loop of 0005 did: each entry checked against the counters as the
    -- calls before it left them (cost, tokens, calls, in that order; the first entry in
    -- (key, period) order that does not fit names the limit), then all of it added.
    <<calls>>
    FOR idx IN 0 .. jsonb_array_length(wanted) - 1 LOOP
        CONTINUE WHEN COALESCE(skip[idx + 1], false);
        call_entries := wanted->idx;
        FOR j IN 0 .. jsonb_array_length(call_entries) - 1 LOOP
            entry := call_entries->j;
            slot := array_position(c_pair, (entry->>'key') || E'\x1f' || (entry->>'period'));
            CONTINUE WHEN refusal / 4 <= slot;  -- one before it in key order does not fit
            lim := (entry->>'limit_cost')::numeric;
            IF lim IS NOT NULL AND c_used_cost[slot] + c_res_cost[slot]
                                   + (entry->>'cost')::numeric > lim THEN
                refusal := slot * 4 + 1;
                r_unit := 'cost';
                r_used := c_used_cost[slot] + c_res_cost[slot];
                r_limit := lim;
                CONTINUE;
            END IF;
            lim := (entry->>'limit_tokens')::bigint;
            IF lim IS NOT NULL AND c_used_tokens[slot] + c_res_tokens[slot]
                                   + (entry->>'tokens')::bigint > lim THEN
                refusal := slot * 4 + 2;
                r_unit := 'tokens';
                r_used := c_used_tokens[slot] + c_res_tokens[slot];
                r_limit := (entry->>'limit_tokens')::numeric;
                CONTINUE;
            END IF;
            lim := (entry->>'limit_calls')::int;
            IF lim IS NOT NULL AND c_used_calls[slot] + c_res_calls[slot]
                                   + (entry->>'calls')::int > lim THEN
                refusal := slot * 4 + 3;
                r_unit := 'calls';
                r_used := c_used_calls[slot] + c_res_calls[slot];
                r_limit := (entry->>'limit_calls')::numeric;
            END IF;
        END LOOP;
        IF refusal IS NOT NULL THEN
            refused := idx;
            EXIT calls;
        END IF;
        FOR j IN 0 .. jsonb_array_length(call_entries) - 1 LOOP
            entry := call_entries->j;
            slot := array_position(c_pair, (entry->>'key') || E'\x1f' || (entry->>'period'));
            -- What the column holds after the UPDATE of this call alone (8 decimals).
            new_cost := (c_res_cost[slot] + (entry->>'cost')::numeric)::numeric(16, 8);
            c_add_cost[slot] := c_add_cost[slot] + (new_cost - c_res_cost[slot]);
            c_res_cost[slot] := new_cost;
            c_add_tokens[slot] := c_add_tokens[slot] + (entry->>'tokens')::bigint;
            c_res_tokens[slot] := c_res_tokens[slot] + (entry->>'tokens')::bigint;
            c_add_calls[slot] := c_add_calls[slot] + (entry->>'calls')::int;
            c_res_calls[slot] := c_res_calls[slot] + (entry->>'calls')::int;
            c_touched[slot] := true;
        END LOOP;
        fit := fit || idx;
    END LOOP;

    IF cardinality(fit) > 0 THEN
        WITH counted AS (
            UPDATE budgets_counter b SET
                reserved_cost_usd = b.reserved_cost_usd
                                    + c_add_cost[array_position(c_id, b.id)],
                reserved_tokens = b.reserved_tokens + c_add_tokens[array_position(c_id, b.id)],
                reserved_calls = b.reserved_calls + c_add_calls[array_position(c_id, b.id)],
                updated_at = at
            WHERE b.id = ANY (c_id) AND c_touched[array_position(c_id, b.id)]
        ), taken AS (
            -- The holds' ids are taken first, so that each maps to its call.
            SELECT f.pos, f.idx, nextval('budgets_hold_id_seq'::regclass) AS id
            FROM unnest(fit) WITH ORDINALITY AS f(idx, pos)
        ), stored AS (
            INSERT INTO budgets_hold (id, entries, created_at)
            SELECT taken.id, wanted->taken.idx, at FROM taken
        )
        SELECT array_agg(taken.id ORDER BY taken.pos) INTO hold_ids FROM taken;
    END IF;

    RETURN QUERY
        SELECT h.idx, h.id, NULL::text, NULL::text, NULL::text, NULL::numeric, NULL::numeric
        FROM unnest(fit, hold_ids) AS h(idx, id)
        UNION ALL
        SELECT refused, NULL::bigint, c_key[refusal / 4], c_period[refusal / 4], r_unit,
               r_used, r_limit
        WHERE refused IS NOT NULL;
END;
$$;
