-- analytics_agent_rows(parts, sign): a debate's rows of analytics_dailyagents, from what
-- `analytics_debate_parts` returned, each count times `sign` (1 or -1): per agent, under
-- model "" and under each model that answered one of the debate's calls.

CREATE OR REPLACE FUNCTION analytics_agent_rows(parts jsonb, sign integer)
RETURNS TABLE (
    day date, protocol text, schedule_id bigint, model text, agent text, changed integer,
    kept integer
)
LANGUAGE sql IMMUTABLE AS $$
SELECT (parts ->> 'day')::date, parts ->> 'protocol', (parts ->> 'schedule')::bigint, c.model,
       a.key, sign * (a.value ->> 0)::int, sign * (a.value ->> 1)::int
FROM jsonb_object_keys(parts -> 'calls') AS c (model)
CROSS JOIN jsonb_each(parts -> 'agents') AS a
$$;
