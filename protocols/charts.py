"""What every chart of a debate is made of, and what the protocols' charts share. Plain Python.

A `ChartSpec` is drawn by `static/charts/charts.js` (Chart.js) from its JSON, and is also its own
text alternative: the page prints it as a table and a sentence. The debate page shows the
positions chart every protocol has (`debates.charts`), then the protocol's own
(`DebateProtocol.charts`: S4's risk, the moderator's scores, the round-robin agreement ...),
each built in its package from the protocol's own rules, so the picture and the decision never
disagree.

Charts read a debate as `debates.live.arrange` arranged it (`so_far`: the debate, its
participants, and per round a column per participant with its positions and vote), by
attribute only: they never query and import nothing of Django.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Statement kinds that state an agent's own position (a moderator's leaning and a refiner's
#: synthesis are charted apart, or not at all).
POSITION_KINDS = ("analysis", "revision", "argument", "turn")


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
    # Shares: each value is `counts[i]` of `totals[i]`, with its 95% interval (low, high).
    counts: list[int | None] = field(default_factory=list)
    totals: list[int | None] = field(default_factory=list)
    intervals: list[tuple[float, float] | None] = field(default_factory=list)
    #: Per value, the page listing what it counts ("" for none): a click on the bar opens it.
    links: list[str] = field(default_factory=list)
    #: A reference drawn as one straight line through its values, across the whole chart.
    straight: bool = False

    def as_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "values": self.values,
            "decisions": self.decisions,
            "kind": self.kind,
            "reference": self.reference,
            "counts": self.counts,
            "totals": self.totals,
            "intervals": [list(i) if i else None for i in self.intervals],
            "links": self.links,
            "straight": self.straight,
        }

    def share_note(self, index: int) -> str:
        """A share's count, n and interval in words (3 of 12; 95% interval 9% to 53%), or ""."""
        if index >= len(self.totals) or not self.totals[index]:
            return ""
        note = f"{self.counts[index]} of {self.totals[index]}"
        interval = self.intervals[index] if index < len(self.intervals) else None
        if interval:
            note += f"; 95% interval {interval[0]:.0%} to {interval[1]:.0%}"
        return note


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
    intro: str = ""  # what the chart means, said above it

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
        if note := series.share_note(index):
            shown = f"{shown} ({note})"
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
    def table(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """`rows`, each cell with the link of its value ("" for none)."""
        if self.by_label:
            return [
                (label, [(self.cell(s, i), _at(s.links, i)) for s in self.series])
                for i, label in enumerate(self.labels)
            ]
        return [
            (s.label, [(self.cell(s, i), _at(s.links, i)) for i in range(len(self.labels))])
            for s in self.series
        ]

    @property
    def columns(self) -> list[str]:
        return [s.label for s in self.series] if self.by_label else list(self.labels)

    def csv_rows(self) -> list[list]:
        """The table with raw numbers (decisions, where a point has one, in a column of their
        own after each series; a share's count, n and 95% interval likewise)."""
        header = [self.row_heading or ("" if self.by_label else "series")]
        if self.by_label:
            for s in self.series:
                header += [s.label, *(f"{s.label} ({name})" for name, _ in _extras(s))]
            out = [header]
            for i, label in enumerate(self.labels):
                row = [label]
                for s in self.series:
                    row += [_raw(s.values, i), *(_raw(values, i) for _, values in _extras(s))]
                out.append(row)
            return out
        out = [header + list(self.labels)]
        for s in self.series:
            out.append([s.label] + [_raw(s.values, i) for i in range(len(self.labels))])
            for name, values in _extras(s):
                out.append(
                    [f"{s.label} ({name})"] + [_raw(values, i) for i in range(len(self.labels))]
                )
        return out


def _extras(series: Series) -> list[tuple[str, list]]:
    """What the CSV adds after a series' values: its decisions, and a share's count, n and
    interval."""
    extras: list[tuple[str, list]] = []
    if any(series.decisions):
        extras.append(("decision", series.decisions))
    if series.totals:
        bounds = [i or (None, None) for i in series.intervals]
        extras += [
            ("count", series.counts),
            ("n", series.totals),
            ("95% low", [b[0] for b in bounds]),
            ("95% high", [b[1] for b in bounds]),
        ]
    return extras


def _at(values: list, index: int):
    return values[index] if index < len(values) else ""


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
    """A decision's colour group ("" for a decision in none: drawn in the neutral colour)."""
    return next((g for g, members in GROUPS.items() if decision in members), "")


def _raw(values: list, index: int):
    value = values[index] if index < len(values) else None
    return "" if value is None else value


def _number(value: float, decimals: int) -> str:
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.{decimals}f}".rstrip("0").rstrip(".")


def position_stages(so_far) -> list[tuple[int | None, str]]:
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


def position_series(so_far, stages, value_of) -> list[Series]:
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


def sentence(spec: ChartSpec) -> str:
    """A text alternative: each series as "label: A → B → C"."""
    parts = []
    for label, cells in spec.rows:
        shown = [c for c in cells if c != "–"]
        if shown:
            parts.append(f"{label}: {' → '.join(shown)}")
    return "; ".join(parts) + "." if parts else "Nothing yet."


def statements_by_round(so_far, kind: str) -> dict[int, dict[int, Any]]:
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
