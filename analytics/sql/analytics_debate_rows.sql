-- analytics_debate_rows(parts, sign): a debate's rows of analytics_dailydebates, from what
-- `analytics_debate_parts` returned, each count times `sign` (1 to add them, -1 to take them
-- away): one row under model "" with every call, one per model with its own calls.

CREATE OR REPLACE FUNCTION analytics_debate_rows(parts jsonb, sign integer)
RETURNS TABLE (
    day date, protocol text, schedule_id bigint, model text,
    finished integer, completed integer, failed integer, retried integer, sent integer,
    resolved integer, overridden integer, cost_usd numeric, tokens_in bigint, tokens_out bigint,
    calls integer, calls_retried integer, calls_failed integer, calls_cost_usd numeric,
    calls_tokens_in bigint, calls_tokens_out bigint, debate_agreed integer,
    majority_agreed integer, single_answers integer, single_agreed integer
)
LANGUAGE sql IMMUTABLE AS $$
SELECT (parts ->> 'day')::date, parts ->> 'protocol', (parts ->> 'schedule')::bigint, c.key,
       sign,
       sign * (parts -> 'debate' ->> 'completed')::int,
       sign * (parts -> 'debate' ->> 'failed')::int,
       sign * (parts -> 'debate' ->> 'retried')::int,
       sign * (parts -> 'debate' ->> 'sent')::int,
       sign * (parts -> 'debate' ->> 'resolved')::int,
       sign * (parts -> 'debate' ->> 'overridden')::int,
       sign * (parts -> 'calls' -> '' ->> 3)::numeric,
       sign * (parts -> 'calls' -> '' ->> 4)::bigint,
       sign * (parts -> 'calls' -> '' ->> 5)::bigint,
       sign * (c.value ->> 0)::int,
       sign * (c.value ->> 1)::int,
       sign * (c.value ->> 2)::int,
       sign * (c.value ->> 3)::numeric,
       sign * (c.value ->> 4)::bigint,
       sign * (c.value ->> 5)::bigint,
       sign * (parts -> 'debate' ->> 'debate_agreed')::int,
       sign * (parts -> 'debate' ->> 'majority_agreed')::int,
       sign * (parts -> 'debate' ->> 'single_answers')::int,
       sign * (parts -> 'debate' ->> 'single_agreed')::int
FROM jsonb_each(parts -> 'calls') AS c
$$;
