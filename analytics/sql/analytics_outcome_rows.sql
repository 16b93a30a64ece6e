-- analytics_outcome_rows(parts, sign): a completed debate's rows of analytics_dailyoutcomes,
-- from what `analytics_debate_parts` returned, each `sign` (1 or -1): one under model "" and
-- one per model that answered one of its calls. None for a failed debate.

CREATE OR REPLACE FUNCTION analytics_outcome_rows(parts jsonb, sign integer)
RETURNS TABLE (
    day date, protocol text, schedule_id bigint, model text, decision text,
    agreement_band smallint, verdict text, confidence_band smallint, n integer
)
LANGUAGE sql IMMUTABLE AS $$
SELECT (parts ->> 'day')::date, parts ->> 'protocol', (parts ->> 'schedule')::bigint, c.model,
       parts -> 'outcome' ->> 'decision',
       (parts -> 'outcome' ->> 'agreement_band')::smallint,
       parts -> 'outcome' ->> 'verdict',
       (parts -> 'outcome' ->> 'confidence_band')::smallint,
       sign
FROM jsonb_object_keys(parts -> 'calls') AS c (model)
WHERE jsonb_typeof(parts -> 'outcome') = 'object'
$$;
