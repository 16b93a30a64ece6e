"""The round robin's own chart: the share of agents on the leading stance after every full
round, as its consensus check counts it, against the threshold."""

from __future__ import annotations

from protocols.charts import ChartSpec, Series, sentence, statements_by_round
from protocols.round_robin import rules


def agreement_chart(so_far) -> ChartSpec | None:
    debate = so_far.debate
    threshold = float((debate.options or {}).get("consensus_threshold", 0.75))
    turns = statements_by_round(so_far, "turn")
    latest: dict[int, str] = {}
    labels, shares, leading = [], [], []
    everyone = {p.pk for p in so_far.participants}
    for number in sorted(turns):
        for pk, statement in turns[number].items():
            latest[pk] = statement.decision
        if set(turns[number]) != everyone:
            break  # the round is still under way
        check = rules.check_consensus(
            number, {str(pk): stance for pk, stance in latest.items()}, threshold
        )
        labels.append(f"Round {number}")
        shares.append(check.share)
        leading.append(check.stance or "tie")
    if not labels:
        return None
    spec = ChartSpec(
        id="agreement",
        title="Agreement after each round",
        kind="bar",
        labels=labels,
        series=[
            Series("Share on the leading stance", shares, decisions=leading, kind="bar"),
            Series(
                f"Consensus at {threshold:.0%}",
                [threshold] * len(labels),
                kind="line",
                reference=True,
            ),
        ],
        y_title="share of agents",
        y_max=1,
        percent=True,
    )
    spec.description = sentence(spec)
    return spec
