"""The debate page's pictures, as data: how each agent's position moved, and the protocol's own
figures round by round (S4: risk against the veto; moderated: the moderator's confidence against
its stop line and the weighted strengths against the margin; round robin: the agreement share
against the consensus threshold).

`debate_charts` reads an arrangement from `debates.live.arrange` (rows already loaded: no
queries) and returns `ChartSpec`s. A spec is drawn by `static/charts/charts.js` (Chart.js) from
its JSON, and is also its own text alternative: the page prints it as a table and a sentence.
The figures come from the protocols' own rules (`check_consensus`, the moderated `decide`), so
the picture and the decision never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from protocols.moderated import rules as moderated_rules
from protocols.round_robin import rules as round_robin_rules

#: Statement kinds that state an agent's own position (a moderator's leaning and a refiner's
#: synthesis are charted apart, or not at all).
POSITION_KINDS = ("analysis", "revision", "argument", "turn")
MODERATED = ("moderated", "moderated_extended")
WITH_RISK = ("s4", "vote")


@dataclass
class Series:
    """One line or set of bars: a value per label (None: nothing there yet); `decisions` gives
    each point's decision (its colour, shape and text label), `kind` "line" or "bar", and
    `reference` marks a threshold line."""

    label: str
    values: list[float | None]
    decisions: list[str] = field(default_factory=list)
    kind: str = ""
    reference: bool = False
    hidden: bool = False  # in the table and the CSV only
    percent: bool | None = None  # None: as the chart says

    def as_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "values": self.values,
            "decisions": self.decisions,
            "kind": self.kind,
            "reference": self.reference,
        }


@dataclass
class ChartSpec:
    """A chart and its text alternative. `kind` is "line" or "bar"; `y_max` fixes the scale
    (confidence 0-100, shares 0-1); `percent` shows values as percentages."""

    id: str
    title: str
    labels: list[str]
    series: list[Series]
    kind: str = "line"
    y_title: str = ""
    y_max: float | None = None
    percent: bool = False
    stacked: bool = False
    horizontal: bool = False
    description: str = ""
    decimals: int = 2
    row_heading: str = ""
    by_label: bool = False

    @property
    def json_id(self) -> str:
        return f"chart-{self.id}-data"

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "kind": self.kind,
            "labels": self.labels,
            "series": [s.as_json() for s in self.series if not s.hidden],
            "y_title": self.y_title,
            "y_max": self.y_max,
            "percent": self.percent,
            "stacked": self.stacked,
            "horizontal": self.horizontal,
        }

    def cell(self, series: Series, index: int) -> str:
        value = series.values[index] if index < len(series.values) else None
        decision = series.decisions[index] if index < len(series.decisions) else ""
        if value is None:
            return decision or "–"
        percent = self.percent if series.percent is None else series.percent
        shown = f"{value:.0%}" if percent else _number(value, self.decimals)
        return f"{decision} {shown}" if decision else shown

    @property
    def key(self) -> list[tuple[str, str, str]]:
        """The decisions the chart shows, each with its shape and colour group, for a key
        printed under the chart (so shapes and colours never need guessing)."""
        seen: list[str] = []
        for s in self.series:
            for d in s.decisions:
                if d and d not in seen:
                    seen.append(d)
        return [(d, SHAPES[decision_group(d)], decision_group(d)) for d in seen]

    @property
    def rows(self) -> list[tuple[str, list[str]]]:
        """The table: one row per series, a cell per label (`by_label`: one row per label, a
        cell per series)."""
        if self.by_label:
            return [
                (label, [self.cell(s, i) for s in self.series])
                for i, label in enumerate(self.labels)
            ]
        return [(s.label, [self.cell(s, i) for i in range(len(self.labels))]) for s in self.series]

    @property
    def columns(self) -> list[str]:
        return [s.label for s in self.series] if self.by_label else list(self.labels)

    def csv_rows(self) -> list[list]:
        """The table with raw numbers (decisions, where a point has one, in a column of their
        own after each series)."""
        header = [self.row_heading or ("" if self.by_label else "series")]
        with_decisions = [bool(any(s.decisions)) for s in self.series]
        if self.by_label:
            for s, decided in zip(self.series, with_decisions, strict=True):
                header += [s.label, f"{s.label} (decision)"] if decided else [s.label]
            out = [header]
            for i, label in enumerate(self.labels):
                row = [label]
                for s, decided in zip(self.series, with_decisions, strict=True):
                    row.append(_raw(s.values, i))
                    if decided:
                        row.append(s.decisions[i] if i < len(s.decisions) else "")
                out.append(row)
            return out
        out = [header + list(self.labels)]
        for s in self.series:
            out.append([s.label] + [_raw(s.values, i) for i in range(len(self.labels))])
            if any(s.decisions):
                out.append([f"{s.label} (decision)"] + list(s.decisions))
        return out


#: Colour groups of the page's decision colours (`templates/base.html`), and the shape each is
#: drawn with (`static/charts/charts.js` draws the same shapes).
GROUPS = {
    "act": ("ACT", "SUPPORT", "BUY"),
    "warn": ("WARN", "HOLD", "UNCERTAIN", "NEUTRAL", "NO_CONSENSUS", "ABSTAIN", "tie"),
    "refuse": ("REFUSE", "OPPOSE", "SELL"),
    "veto": ("VETO",),
}
SHAPES = {"act": "●", "warn": "▲", "refuse": "◆", "veto": "✕", "": "●"}


def decision_group(decision: str) -> str:
    return next((g for g, members in GROUPS.items() if decision in members), "")


def _raw(values: list, index: int):
    value = values[index] if index < len(values) else None
    return "" if value is None else value


def _number(value: float, decimals: int) -> str:
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.{decimals}f}".rstrip("0").rstrip(".")


def _moderated_scale(protocol: str) -> float:
    """Moderated debates speak of confidence on 0-1 (stored x100)."""
    return 100.0 if protocol in MODERATED else 1.0


def _stages(so_far) -> list[tuple[int | None, str]]:
    """(round number, label) of every round holding a position, then the final vote."""
    stages: list[tuple[int | None, str]] = []
    first = True
    for view in so_far.rounds:
        held = any(
            p.statement.kind in POSITION_KINDS for column in view.columns for p in column.positions
        )
        if not held:
            continue
        if first:
            label = "Independent answer"
            first = False
        elif view.round.name and "revision" in view.round.name.lower():
            label = "Revision"
        else:
            label = f"Round {view.round.number}"
        stages.append((view.round.number, label))
    if any(column.vote for view in so_far.rounds for column in view.columns):
        stages.append((None, "Final vote"))
    return stages


def _positions(so_far, stages, value_of) -> list[Series]:
    """A series per agent who holds a position: its value at every stage, with the decision."""
    at: dict[tuple[int | None, int], Any] = {}
    for view in so_far.rounds:
        for column in view.columns:
            for position in column.positions:
                s = position.statement
                if s.kind in POSITION_KINDS:
                    at[(view.round.number, column.participant.pk)] = s
            if column.vote:
                at[(None, column.participant.pk)] = column.vote
    series = []
    for participant in so_far.participants:
        found = [at.get((number, participant.pk)) for number, _ in stages]
        if not any(found):
            continue
        series.append(
            Series(
                label=participant.name,
                values=[None if f is None else value_of(f) for f in found],
                decisions=["" if f is None else f.decision for f in found],
            )
        )
    return series


def _sentence(spec: ChartSpec) -> str:
    """A text alternative: each series as "label: A → B → C"."""
    parts = []
    for label, cells in spec.rows:
        shown = [c for c in cells if c != "–"]
        if shown:
            parts.append(f"{label}: {' → '.join(shown)}")
    return "; ".join(parts) + "." if parts else "Nothing yet."


def positions_chart(so_far) -> ChartSpec | None:
    debate = so_far.debate
    stages = _stages(so_far)
    if not stages:
        return None
    scale = _moderated_scale(debate.protocol)
    series = _positions(so_far, stages, lambda s: round(s.confidence / scale, 4))
    moderated = debate.protocol in MODERATED
    spec = ChartSpec(
        id="positions",
        title=(
            "How each agent's side and confidence moved"
            if moderated
            else "How each agent's position and confidence moved"
        ),
        labels=[label for _, label in stages],
        series=series,
        y_title="confidence (0-1)" if moderated else "confidence (0-100)",
        y_max=1 if moderated else 100,
        row_heading="Agent",
    )
    spec.description = _sentence(spec)
    return spec


def risk_chart(so_far) -> ChartSpec | None:
    """S4 and vote: each agent's risk, against the veto threshold of the agent that can veto."""
    if so_far.debate.protocol not in WITH_RISK:
        return None
    stages = _stages(so_far)
    if not stages:
        return None
    series = _positions(so_far, stages, lambda s: s.risk)
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
    spec.description = _sentence(spec)
    return spec


def _rounds_with(so_far, kind: str) -> dict[int, dict[int, Any]]:
    """Statements of `kind` by round number, then participant id."""
    found: dict[int, dict[int, Any]] = {}
    for view in so_far.rounds:
        for column in view.columns:
            for position in column.positions:
                if position.statement.kind == kind:
                    found.setdefault(view.round.number, {})[column.participant.pk] = (
                        position.statement
                    )
    return found


def agreement_chart(so_far) -> ChartSpec | None:
    """Round robin: the share of agents on the leading stance after every full round, as the
    consensus check counts it, against the threshold."""
    debate = so_far.debate
    if debate.protocol != "round_robin":
        return None
    threshold = float((debate.options or {}).get("consensus_threshold", 0.75))
    turns = _rounds_with(so_far, "turn")
    latest: dict[int, str] = {}
    labels, shares, leading = [], [], []
    everyone = {p.pk for p in so_far.participants}
    for number in sorted(turns):
        for pk, statement in turns[number].items():
            latest[pk] = statement.decision
        if set(turns[number]) != everyone:
            break  # the round is still under way
        check = round_robin_rules.check_consensus(
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
    spec.description = _sentence(spec)
    return spec


def _argument(statement) -> moderated_rules.Argument | None:
    d = statement.details or {}
    try:
        return moderated_rules.Argument(
            agent=statement.participant.name,
            role=d.get("role") or statement.participant.role,
            side=statement.decision,
            round_number=statement.round.number,
            confidence=float(d.get("confidence_0_1", statement.confidence / 100)),
            supporting_evidence=tuple(d.get("supporting_evidence") or ()),
        )
    except (TypeError, ValueError):
        return None


def _evaluation(statement) -> moderated_rules.Evaluation | None:
    d = statement.details or {}
    try:
        return moderated_rules.Evaluation(
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
    """Moderated: the moderator's confidence per round against its stop line, and each side's
    weighted strength so far (the rules' `decide` over the rounds up to then) against the
    margin the stronger side must pass."""
    debate = so_far.debate
    if debate.protocol not in MODERATED:
        return []
    options = debate.options or {}
    threshold = float(options.get("consensus_threshold", 0.8))
    max_rounds = int(options.get("max_rounds", 2))
    moderations = _rounds_with(so_far, "moderation")
    arguments = [
        a
        for by_agent in _rounds_with(so_far, "argument").values()
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
        md = moderated_rules.decide(
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
            Series(f"Stops above {threshold:g}", [threshold] * len(labels), reference=True),
        ],
        y_title="confidence (0-1)",
        y_max=1,
    )
    stop.description = _sentence(stop)
    factor = float(moderated_rules.MARGIN)
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
    strengths.description = _sentence(strengths)
    return [stop, strengths]


def debate_charts(so_far) -> list[ChartSpec]:
    """Every chart the debate page shows for the debate so far (none before a position)."""
    charts = [positions_chart(so_far), risk_chart(so_far), agreement_chart(so_far)]
    return [c for c in charts if c is not None] + moderator_charts(so_far)
