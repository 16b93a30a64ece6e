-- analytics_debate_calls(low, high): for each debate whose id is in [low, high] (one debate:
-- low = high; every debate: the lowest and highest ids), what its calls add to the analytics
-- roll-ups, by the model that answered them and under "" for all of them: [calls, retried,
-- failed, cost, tokens in, tokens out] (see `analytics_debate_parts`).

CREATE OR REPLACE FUNCTION analytics_debate_calls(low uuid, high uuid)
RETURNS TABLE (debate_id uuid, calls jsonb)
LANGUAGE sql STABLE AS $$
SELECT per_model.debate_id, jsonb_object_agg(per_model.model, per_model.counts)
FROM (
    SELECT c.debate_id,
           CASE WHEN GROUPING(c.model) = 1 THEN '' ELSE COALESCE(NULLIF(c.model, ''), '?') END
               AS model,
           jsonb_build_array(
               count(*),
               count(*) FILTER (WHERE c.attempts > 1),
               count(*) FILTER (WHERE c.status = 'failed'),
               COALESCE(sum(c.cost_usd), 0),
               COALESCE(sum(c.tokens_in), 0),
               COALESCE(sum(c.tokens_out), 0)
           ) AS counts
    FROM debates_llmcall c
    WHERE c.debate_id BETWEEN low AND high
    GROUP BY c.debate_id, ROLLUP (c.model)
) AS per_model
GROUP BY per_model.debate_id
$$;
