-- analytics_add(before, after): moves the analytics roll-ups from counting a debate as `before`
-- to counting it as `after` (each what `analytics_debate_parts` returned, NULL: not counted).
-- Each table gets one upsert of the differences, merged per key and taken in key order, so two
-- transactions changing the same rows lock them in the same order (no deadlock); rows whose
-- counts do not change are not touched.

CREATE OR REPLACE FUNCTION analytics_add(before jsonb, after jsonb) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    INSERT INTO analytics_dailydebates AS t (
        day, protocol, schedule_id, model, finished, completed, failed, retried, sent, resolved,
        overridden, cost_usd, tokens_in, tokens_out, calls, calls_retried, calls_failed,
        calls_cost_usd, calls_tokens_in, calls_tokens_out, debate_agreed, majority_agreed,
        single_answers, single_agreed)
    SELECT r.day, r.protocol, r.schedule_id, r.model, sum(r.finished), sum(r.completed),
           sum(r.failed), sum(r.retried), sum(r.sent), sum(r.resolved), sum(r.overridden),
           sum(r.cost_usd), sum(r.tokens_in), sum(r.tokens_out), sum(r.calls),
           sum(r.calls_retried), sum(r.calls_failed), sum(r.calls_cost_usd),
           sum(r.calls_tokens_in), sum(r.calls_tokens_out), sum(r.debate_agreed),
           sum(r.majority_agreed), sum(r.single_answers), sum(r.single_agreed)
    FROM (
        SELECT * FROM analytics_debate_rows(before, -1)
        UNION ALL
        SELECT * FROM analytics_debate_rows(after, 1)
    ) AS r
    GROUP BY r.day, r.protocol, r.schedule_id, r.model
    HAVING (sum(r.finished), sum(r.completed), sum(r.failed), sum(r.retried), sum(r.sent),
            sum(r.resolved), sum(r.overridden), sum(r.cost_usd), sum(r.tokens_in),
            sum(r.tokens_out), sum(r.calls), sum(r.calls_retried), sum(r.calls_failed),
            sum(r.calls_cost_usd), sum(r.calls_tokens_in), sum(r.calls_tokens_out),
            sum(r.debate_agreed), sum(r.majority_agreed), sum(r.single_answers),
            sum(r.single_agreed))
           IS DISTINCT FROM (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    ORDER BY r.day, r.protocol, r.schedule_id, r.model
    ON CONFLICT (day, protocol, schedule_id, model) DO UPDATE SET
        finished = t.finished + excluded.finished,
        completed = t.completed + excluded.completed,
        failed = t.failed + excluded.failed,
        retried = t.retried + excluded.retried,
        sent = t.sent + excluded.sent,
        resolved = t.resolved + excluded.resolved,
        overridden = t.overridden + excluded.overridden,
        cost_usd = t.cost_usd + excluded.cost_usd,
        tokens_in = t.tokens_in + excluded.tokens_in,
        tokens_out = t.tokens_out + excluded.tokens_out,
        calls = t.calls + excluded.calls,
        calls_retried = t.calls_retried + excluded.calls_retried,
        calls_failed = t.calls_failed + excluded.calls_failed,
        calls_cost_usd = t.calls_cost_usd + excluded.calls_cost_usd,
        calls_tokens_in = t.calls_tokens_in + excluded.calls_tokens_in,
        calls_tokens_out = t.calls_tokens_out + excluded.calls_tokens_out,
        debate_agreed = t.debate_agreed + excluded.debate_agreed,
        majority_agreed = t.majority_agreed + excluded.majority_agreed,
        single_answers = t.single_answers + excluded.single_answers,
        single_agreed = t.single_agreed + excluded.single_agreed;

    INSERT INTO analytics_dailyoutcomes AS t (
        day, protocol, schedule_id, model, decision, agreement_band, verdict, confidence_band, n)
    SELECT r.day, r.protocol, r.schedule_id, r.model, r.decision, r.agreement_band, r.verdict,
           r.confidence_band, sum(r.n)
    FROM (
        SELECT * FROM analytics_outcome_rows(before, -1)
        UNION ALL
        SELECT * FROM analytics_outcome_rows(after, 1)
    ) AS r
    GROUP BY r.day, r.protocol, r.schedule_id, r.model, r.decision, r.agreement_band,
             r.verdict, r.confidence_band
    HAVING sum(r.n) <> 0
    ORDER BY r.day, r.protocol, r.schedule_id, r.model, r.decision, r.agreement_band,
             r.verdict, r.confidence_band
    ON CONFLICT (day, protocol, schedule_id, model, decision, agreement_band, verdict,
                 confidence_band)
    DO UPDATE SET n = t.n + excluded.n;

    INSERT INTO analytics_dailyagents AS t (
        day, protocol, schedule_id, model, agent, changed, kept)
    SELECT r.day, r.protocol, r.schedule_id, r.model, r.agent, sum(r.changed), sum(r.kept)
    FROM (
        SELECT * FROM analytics_agent_rows(before, -1)
        UNION ALL
        SELECT * FROM analytics_agent_rows(after, 1)
    ) AS r
    GROUP BY r.day, r.protocol, r.schedule_id, r.model, r.agent
    HAVING (sum(r.changed), sum(r.kept)) IS DISTINCT FROM (0, 0)
    ORDER BY r.day, r.protocol, r.schedule_id, r.model, r.agent
    ON CONFLICT (day, protocol, schedule_id, model, agent) DO UPDATE SET
        changed = t.changed + excluded.changed,
        kept = t.kept + excluded.kept;
END;
$$;
