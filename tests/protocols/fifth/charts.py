"""The show of hands' own chart: how many hands went up for each side."""

from __future__ import annotations

from collections import Counter

from protocols.charts import ChartSpec, Series, sentence
from tests.protocols.fifth.rules import HANDS


def hands_chart(so_far) -> ChartSpec | None:
    votes = [column.vote for view in so_far.rounds for column in view.columns if column.vote]
    if not votes:
        return None
    counts = Counter(vote.decision for vote in votes)
    spec = ChartSpec(
        id="hands",
        title="Hands raised",
        kind="bar",
        labels=list(HANDS),
        series=[Series("Hands", [counts[h] for h in HANDS], decisions=list(HANDS), kind="bar")],
        y_title="agents",
    )
    spec.description = sentence(spec)
    return spec
