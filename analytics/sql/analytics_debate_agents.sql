-- analytics_debate_agents(low, high): for each debate whose id is in [low, high] (one debate:
-- low = high; every debate: the lowest and highest ids), its statements that revise an earlier
-- position, per agent (display name): [changed it, kept it] (see `analytics_debate_parts`).

CREATE OR REPLACE FUNCTION analytics_debate_agents(low uuid, high uuid)
RETURNS TABLE (debate_id uuid, agents jsonb)
LANGUAGE sql STABLE AS $$
SELECT per_agent.debate_id, jsonb_object_agg(per_agent.name, per_agent.counts)
FROM (
    SELECT s.debate_id, p.name,
           jsonb_build_array(
               count(*) FILTER (WHERE s.previous_decision <> s.decision),
               count(*) FILTER (WHERE s.previous_decision = s.decision)
           ) AS counts
    FROM debates_statement s
    JOIN debates_participant p ON p.id = s.participant_id
    WHERE s.debate_id BETWEEN low AND high AND s.previous_decision <> ''
    GROUP BY s.debate_id, p.name
) AS per_agent
GROUP BY per_agent.debate_id
$$;
