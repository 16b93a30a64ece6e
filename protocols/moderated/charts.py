"""The moderated debates' own charts: the moderator's confidence per round against its stop
line, and each side's weighted strength so far (the rules' `decide` over the rounds up to
then) against the margin the stronger side must pass."""

from __future__ import annotations

from protocols.charts import ChartSpec, Series, sentence, statements_by_round
from protocols.moderated import rules


def _argument(statement) -> rules.Argument | None:
    d = statement.details or {}
    try:
        return rules.Argument(
            agent=statement.participant.name,
            role=d.get("role") or statement.participant.role,
            side=statement.decision,
            round_number=statement.round.number,
            confidence=float(d.get("confidence_0_1", statement.confidence / 100)),
            supporting_evidence=tuple(d.get("supporting_evidence") or ()),
        )
    except (TypeError, ValueError):
        return None


def _evaluation(statement) -> rules.Evaluation | None:
    d = statement.details or {}
    try:
        return rules.Evaluation(
            round_number=statement.round.number,
            confidence=float(d.get("confidence_0_1", statement.confidence / 100)),
            pro_quality=d.get("pro_quality"),
            con_quality=d.get("con_quality"),
            consensus_reached=bool(d.get("consensus_reached")),
            leaning=statement.decision,
        )
    except (TypeError, ValueError):
        return None


def moderator_charts(so_far) -> list[ChartSpec]:
    """The moderator's stop line, then the weighted strengths (none before a moderation)."""
    options = so_far.debate.options or {}
    threshold = float(options.get("consensus_threshold", 0.8))
    max_rounds = int(options.get("max_rounds", 2))
    moderations = statements_by_round(so_far, "moderation")
    arguments = [
        a
        for by_agent in statements_by_round(so_far, "argument").values()
        for s in by_agent.values()
        if (a := _argument(s)) is not None
    ]
    labels, confidence, leanings, pro, con, margin = [], [], [], [], [], []
    evaluations = []
    for number in sorted(moderations):
        statement = next(iter(moderations[number].values()))
        evaluation = _evaluation(statement)
        if evaluation is None:
            continue
        evaluations.append(evaluation)
        labels.append(f"Round {number}")
        confidence.append(evaluation.confidence)
        leanings.append(statement.decision)
        so_far_args = [a for a in arguments if a.round_number <= number]
        md = rules.decide(
            so_far_args, evaluations, consensus_threshold=threshold, max_rounds=max_rounds
        ).metadata
        pro.append(float(md["pro_strength"]))
        con.append(float(md["con_strength"]))
        margin.append(round(float(md["margin_required"]) * min(pro[-1], con[-1]), 6))
    if not labels:
        return []
    stop = ChartSpec(
        id="moderator",
        title="The moderator's confidence by round",
        labels=labels,
        series=[
            Series("Moderator's confidence", confidence, decisions=leanings),
            Series(f"Stops above {threshold:.0%}", [threshold] * len(labels), reference=True),
        ],
        y_title="confidence",
        y_max=1,
        percent=True,
    )
    stop.description = sentence(stop)
    factor = float(rules.MARGIN)
    strengths = ChartSpec(
        id="strengths",
        title=f"Weighted strength of each side so far, against the {factor:g}x margin",
        kind="bar",
        labels=labels,
        series=[
            Series("Pro (SUPPORT)", pro, decisions=["SUPPORT"] * len(labels), kind="bar"),
            Series("Con (OPPOSE)", con, decisions=["OPPOSE"] * len(labels), kind="bar"),
            Series(
                f"{factor:g}x the weaker side (the stronger must pass it)",
                margin,
                kind="line",
                reference=True,
            ),
        ],
        y_title="weighted strength",
        decimals=4,
    )
    strengths.description = sentence(strengths)
    return [stop, strengths]
