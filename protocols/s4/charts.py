"""S4's own chart: the risk each agent saw, against the veto threshold of each agent that can
veto (the vote protocol shows the same)."""

from __future__ import annotations

from protocols.charts import ChartSpec, Series, position_series, position_stages, sentence


def risk_chart(so_far) -> ChartSpec | None:
    stages = position_stages(so_far)
    if not stages:
        return None
    series = position_series(so_far, stages, lambda s: s.risk)
    for veto in (p for p in so_far.participants if p.can_veto):
        series.append(
            Series(
                label=f"{veto.name} vetoes at {veto.veto_risk_threshold}",
                values=[float(veto.veto_risk_threshold)] * len(stages),
                reference=True,
            )
        )
    spec = ChartSpec(
        id="risk",
        title="Risk each agent saw",
        labels=[label for _, label in stages],
        series=series,
        y_title="risk (0-100)",
        y_max=100,
        row_heading="Agent",
    )
    spec.description = sentence(spec)
    return spec
