-- analytics_debate_parts(debate, zone, calls, agents): what one debate adds to the analytics
-- roll-ups, as JSON (NULL while it has not finished): the day it was created (in `zone`), its
-- protocol and schedule (0: none); its own counts ("debate"); its calls' counts per model and
-- under "" for all ("calls", from `analytics_debate_calls`); when it completed, its outcome
-- (effective decision, agreement and confidence bands, what the debate did against the
-- majority vote by the reviewers' verdict); its revisions per agent ("agents", from
-- `analytics_debate_agents`). `analytics_count_debate` keeps what it returned
-- (analytics_debatecount); the `analytics_*_rows` functions turn it into roll-up rows.

CREATE OR REPLACE FUNCTION analytics_debate_parts(
    d debates_debate, zone text, calls jsonb, agents jsonb
) RETURNS jsonb
LANGUAGE sql STABLE AS $$
-- One expression (no FROM, no sub-select), so that PostgreSQL inlines it into the statement
-- that calls it: in a rebuild, a million times. A debate is labelled when it completed and its
-- review was resolved; the verdict is the reviewer's override, else the decision upheld.
SELECT CASE WHEN d.status NOT IN ('completed', 'failed') THEN NULL ELSE jsonb_build_object(
    'day', (d.created_at AT TIME ZONE zone)::date,
    'protocol', d.protocol,
    'schedule', COALESCE(d.schedule_id, 0),
    'debate', jsonb_build_object(
        'completed', (d.status = 'completed')::int,
        'failed', (d.status = 'failed')::int,
        'retried', (d.attempts > 1 OR d.recoveries > 0)::int,
        'sent', (d.status = 'completed' AND d.review_status <> '')::int,
        'resolved', (d.status = 'completed' AND d.review_status = 'resolved')::int,
        'overridden', (d.status = 'completed' AND d.decision_override NOT IN ('', d.decision))::int,
        'debate_agreed', (d.status = 'completed' AND d.review_status = 'resolved'
                          AND d.decision_override IN ('', d.decision))::int,
        'majority_agreed', (d.status = 'completed' AND d.review_status = 'resolved'
                            AND d.majority_decision
                                = COALESCE(NULLIF(d.decision_override, ''), d.decision))::int,
        'single_answers', CASE
            WHEN d.status <> 'completed' OR d.review_status <> 'resolved'
                 OR jsonb_typeof(d.baselines -> 'agents') IS DISTINCT FROM 'array' THEN 0
            ELSE jsonb_array_length(d.baselines -> 'agents') END,
        'single_agreed', CASE
            WHEN d.status <> 'completed' OR d.review_status <> 'resolved'
                 OR jsonb_typeof(d.baselines -> 'agents') IS DISTINCT FROM 'array' THEN 0
            ELSE jsonb_array_length(jsonb_path_query_array(
                d.baselines, '$.agents[*] ? (@.independent == $verdict)',
                jsonb_build_object(
                    'verdict', COALESCE(NULLIF(d.decision_override, ''), d.decision))
            )) END
    ),
    'calls', COALESCE(calls, '{"": [0, 0, 0, 0, 0, 0]}'::jsonb),
    'outcome', CASE WHEN d.status = 'completed' THEN jsonb_build_object(
        'decision', COALESCE(NULLIF(d.decision_override, ''), d.decision),
        'agreement_band', CASE WHEN d.agreement IS NULL THEN -1
                               ELSE LEAST(GREATEST(floor(d.agreement / 10), 0), 9)::int END,
        'verdict', CASE
            WHEN d.review_status <> 'resolved' THEN ''
            WHEN d.majority_decision = '' THEN
                CASE WHEN d.decision_override IN ('', d.decision) THEN 'right_alone'
                     ELSE 'wrong_alone' END
            WHEN d.decision_override IN ('', d.decision) THEN
                CASE WHEN d.majority_decision = d.decision THEN 'kept_right' ELSE 'fixed' END
            WHEN d.majority_decision = d.decision_override THEN 'broke'
            WHEN d.majority_decision = d.decision THEN 'kept_wrong'
            ELSE 'changed_wrong' END,
        'confidence_band', CASE
            WHEN jsonb_typeof(d.quality -> 'decision_confidence') IS DISTINCT FROM 'number'
                THEN -1
            ELSE LEAST(GREATEST(floor((d.quality ->> 'decision_confidence')::float * 10), 0),
                       9)::int END
    ) END,
    'agents', COALESCE(agents, '{}'::jsonb)
) END
$$;
