"""The debate page's pictures, as data: how each agent's position moved (every protocol), then
the protocol's own figures round by round (`DebateProtocol.charts`: S4's risk against the veto,
the moderator's confidence and the weighted strengths, the round-robin agreement share ...).

`debate_charts` reads an arrangement from `debates.live.arrange` (rows already loaded: no
queries) and returns `ChartSpec`s (`protocols.charts`), drawn by `static/charts/charts.js` and
printed as a table and a sentence.
"""

from __future__ import annotations

from protocols import protocol_for
from protocols.charts import (
    ChartSpec,
    Series,
    decision_group,
    position_series,
    position_stages,
    sentence,
)

__all__ = ["ChartSpec", "Series", "debate_charts", "decision_group", "positions_chart"]


def positions_chart(so_far) -> ChartSpec | None:
    """Each agent's position and confidence at every stage, in percent like every confidence
    the service shows (stored confidences are 0-100, whatever scale the agents answered on)."""
    protocol = protocol_for(so_far.debate.protocol)
    stages = position_stages(so_far)
    if not stages:
        return None
    spec = ChartSpec(
        id="positions",
        title=f"How each agent's {protocol.position_noun} and confidence moved",
        labels=[label for _, label in stages],
        series=position_series(so_far, stages, lambda s: round(s.confidence / 100, 4)),
        y_title="confidence",
        y_max=1,
        percent=True,
        row_heading="Agent",
    )
    spec.description = sentence(spec)
    return spec


def debate_charts(so_far) -> list[ChartSpec]:
    """Every chart the debate page shows for the debate so far (none before a position)."""
    positions = positions_chart(so_far)
    own = protocol_for(so_far.debate.protocol).charts(so_far)
    return ([positions] if positions is not None else []) + [c for c in own if c is not None]
