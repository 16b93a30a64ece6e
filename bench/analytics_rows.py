"""Many finished debates written by PostgreSQL itself (`generate_series`, a few statements, no
Python loop): what `bench/analytics_bench.py` measures the analytics page over. Per debate: three
agents, twelve answered calls (S4's 3 + 6 + 3) on two models, six statements (three analyses,
three revisions that revise them), two rounds; over the last `days` days, four protocols, a
schedule for every fifth, a quarter labelled by a reviewer (a twelfth overridden), a quarter
waiting for review, one in fifty failed and one in twenty retried.

Prompts and replies are empty, so the tables are smaller than real ones of the same count."""

from __future__ import annotations

from django.db import connection

PROTOCOLS = ("s4", "round_robin", "moderated", "moderated_extended")
DECISIONS = {
    "s4": ("ACT", "WARN", "REFUSE"),
    "round_robin": ("BUY", "HOLD", "SELL"),
    "moderated": ("SUPPORT", "OPPOSE", "UNCERTAIN"),
    "moderated_extended": ("SUPPORT", "OPPOSE", "UNCERTAIN"),
}
MODELS = ("openai/gpt-4o-mini", "anthropic/claude-3-5-haiku")
AGENTS = ("Utility Agent", "Accuracy Agent", "Safety Agent")
CALLS = 12
STATEMENTS = 6
# Ids far above any a test or the app has used, so that rows of earlier runs never collide.
BASE = 10_000_000_000


def _array(values) -> str:
    return "ARRAY[" + ", ".join(f"'{v}'" for v in values) + "]"


def _indexable(values) -> str:
    return f"({_array(values)})"


def seed(n: int, *, schedule_id: int | None, days: int = 30, offset: int = 0) -> None:
    """Write `n` debates numbered from `offset` (call again with another offset to add more).
    Triggers are left on: a caller that wants them off sets `session_replication_role`."""
    protocols = _indexable(PROTOCOLS)
    decisions = "(ARRAY[" + ", ".join(_array(DECISIONS[p]) for p in PROTOCOLS) + "])"
    models = _indexable(MODELS)
    agents = _indexable(AGENTS)
    params = {"n": n, "offset": offset, "days": days, "base": BASE, "schedule": schedule_id}
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            CREATE TEMP TABLE bench_debates AS
            SELECT i,
                   md5('bench-debate-' || i)::uuid AS id,
                   {protocols}[1 + mod(i, 4)] AS protocol,
                   1 + mod(i, 4) AS p,
                   mod(i, 50) = 7 AS failed,
                   date_trunc('day', now()) - (mod(i, %(days)s)) * interval '1 day'
                       + (mod((i * 7919), 80000)) * interval '1 second' AS created_at
            FROM generate_series(%(offset)s::bigint, %(offset)s + %(n)s - 1) AS i
            """,
            params,
        )
        cursor.execute(
            f"""
            INSERT INTO debates_debate (
                id, query, protocol, options, status, decision, reasoning, metadata,
                consensus_type, injection_findings, is_complex_query, tokens_in, tokens_out,
                cost_usd, attempts, error, created_at, started_at, completed_at, updated_at,
                decision_override, review_status, callback_url, recoveries, schedule_id,
                baselines, majority_decision, outcome_change, rules_version, quality)
            SELECT b.id, 'question ' || b.i, b.protocol, '{{}}', 
                   CASE WHEN b.failed THEN 'failed' ELSE 'completed' END,
                   CASE WHEN b.failed THEN '' ELSE {decisions}[b.p][1 + mod(b.i, 3)] END,
                   '',
                   CASE b.protocol
                       WHEN 's4' THEN jsonb_build_object(
                           'agreement_percentage', (ARRAY[33.3, 66.7, 100.0])[1 + mod(b.i, 3)],
                           'avg_confidence', 50 + mod(b.i, 50))
                       WHEN 'round_robin' THEN jsonb_build_object(
                           'agreement_share', (ARRAY[0.3333, 0.6667, 1.0])[1 + mod(b.i, 3)],
                           'avg_confidence', 40 + mod(b.i, 60))
                       ELSE jsonb_build_object('decision_confidence', (mod(b.i, 100)) / 100.0)
                   END,
                   '', '[]', false, 900 * 4, 300 * 4, 0.012,
                   CASE WHEN mod(b.i, 20) = 3 THEN 2 ELSE 1 END,
                   CASE WHEN b.failed THEN 'LLM failed' ELSE '' END,
                   b.created_at, b.created_at, b.created_at + interval '9 seconds',
                   b.created_at + interval '9 seconds',
                   CASE WHEN NOT b.failed AND mod(b.i, 12) = 0
                        THEN {decisions}[b.p][1 + mod((b.i + 1), 3)] ELSE '' END,
                   CASE WHEN b.failed THEN 'pending'
                        WHEN mod(b.i, 4) = 0 THEN 'resolved'
                        WHEN mod(b.i, 4) = 1 THEN 'pending' ELSE '' END,
                   '', CASE WHEN mod(b.i, 37) = 5 THEN 1 ELSE 0 END,
                   CASE WHEN mod(b.i, 5) = 0 THEN %(schedule)s::bigint END,
                   CASE WHEN b.failed THEN '{{}}'::jsonb ELSE jsonb_build_object('agents',
                       (SELECT jsonb_agg(jsonb_build_object(
                            'agent', 'a' || a,
                            'independent', {decisions}[b.p][1 + mod((b.i + a), 3)],
                            'final', {decisions}[b.p][1 + mod(b.i, 3)], 'change', 'same'))
                        FROM generate_series(0, 2) AS a)) END,
                   CASE WHEN b.failed THEN '' ELSE {decisions}[b.p][1 + mod((b.i / 7), 3)] END,
                   '', '', '{{}}'
            FROM bench_debates b
            """,
            params,
        )
        cursor.execute(
            """
            INSERT INTO debates_round (id, number, name, status, started_at, completed_at,
                                       debate_id)
            SELECT %(base)s + b.i * 2 + r, 1 + r, (ARRAY['Analysis', 'Revision'])[1 + r],
                   'completed', b.created_at, b.created_at, b.id
            FROM bench_debates b CROSS JOIN generate_series(0, 1) AS r
            """,
            params,
        )
        cursor.execute(
            f"""
            INSERT INTO debates_participant (id, position, name, slug, role, system_prompt,
                model_name, temperature, can_veto, veto_risk_threshold, debate_id)
            SELECT %(base)s + b.i * 3 + a, a, {agents}[1 + a], 'a' || a, 'r', '',
                   {models}[1 + mod(a, 2)], 0.2, false, 50, b.id
            FROM bench_debates b CROSS JOIN generate_series(0, 2) AS a
            """,
            params,
        )
        cursor.execute(
            f"""
            INSERT INTO debates_llmcall (id, key, round_number, step, status, model, prompt,
                raw_response, parsed, parse_failed, tokens_in, tokens_out, cost_usd,
                latency_ms, attempts, error, created_at, completed_at, debate_id,
                participant_id, raw_escaped, reasoning_content, deployment, injection_findings,
                started_at, lost_cost_usd, lost_tokens_in, lost_tokens_out)
            SELECT %(base)s + b.i * {CALLS} + c, 'c' || c, 1 + c / 3, 'step',
                   CASE WHEN b.failed AND c = {CALLS - 1} THEN 'failed' ELSE 'done' END,
                   {models}[1 + mod((mod(c, 3)), 2)], '[]', '', '{{}}', false, 300, 100, 0.001, 700,
                   CASE WHEN mod((b.i + c), 25) = 0 THEN 2 ELSE 1 END, '',
                   b.created_at, b.created_at + interval '1 second', b.id,
                   %(base)s + b.i * 3 + mod(c, 3), false, '', '', '[]', b.created_at, 0, 0, 0
            FROM bench_debates b CROSS JOIN generate_series(0, {CALLS - 1}) AS c
            """,
            params,
        )
        cursor.execute(
            f"""
            INSERT INTO debates_statement (id, kind, decision, confidence, risk, reasoning,
                previous_decision, parse_failed, notes, created_at, call_id, debate_id,
                participant_id, round_id, details)
            SELECT %(base)s + b.i * {STATEMENTS} + s,
                   CASE WHEN s < 3 THEN 'analysis' ELSE 'revision' END,
                   {decisions}[b.p][1 + mod((b.i + s), 3)], 70, 20, '',
                   CASE WHEN s < 3 THEN '' ELSE {decisions}[b.p][1 + mod((b.i + s + s / 5), 3)] END,
                   false, '[]', b.created_at, %(base)s + b.i * {CALLS} + s, b.id,
                   %(base)s + b.i * 3 + mod(s, 3), %(base)s + b.i * 2 + s / 3, '{{}}'
            FROM bench_debates b CROSS JOIN generate_series(0, {STATEMENTS - 1}) AS s
            WHERE NOT b.failed
            """,
            params,
        )
        cursor.execute("DROP TABLE bench_debates")
