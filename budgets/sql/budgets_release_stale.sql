-- budgets_release_stale(before, time_zone): the holds of calls made before `before` (a worker
-- died before settling them, as no call lasts that long) are counted as spent, at the most they
-- held
-- (`budgets_charge_holds`: the call may have been answered and billed); a debate's admission
-- (`budgets_close` ends it) is left alone, and so are holds another transaction has locked.
-- Their calls count in the usage of the day they were made, in `time_zone`. Returns how many
-- holds were charged.

CREATE OR REPLACE FUNCTION budgets_release_stale(before timestamptz, time_zone text)
RETURNS integer
LANGUAGE sql AS $$
    SELECT count(*)::integer FROM budgets_charge_holds(
        ARRAY(SELECT id FROM budgets_hold WHERE created_at < before AND admits IS NULL),
        now(), time_zone);
$$;
