"""Accuracy of an evaluation run as the pages show it, and two runs compared. Plain Python.

Every share carries its n and a 95% Wilson score interval (`question_sets.wilson_interval`).
Two runs are compared method by method and category by category: the difference is real only
when the two intervals do not overlap; when they do, it is "within the noise"
(docs/analysts/evaluation.md, "The evaluation pages").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from protocols.question_sets import wilson_interval

WITHIN_NOISE = "within the noise"


@dataclass(frozen=True)
class Accuracy:
    """`agreed` right answers of `n` finished questions."""

    agreed: int = 0
    n: int = 0

    @classmethod
    def of(cls, figure: Mapping[str, Any] | None) -> Accuracy:
        """From a stored figure (`{"n", "agreed", "rate"}`); nothing counted when missing."""
        if not figure:
            return cls()
        return cls(agreed=int(figure.get("agreed") or 0), n=int(figure.get("n") or 0))

    @property
    def rate(self) -> float | None:
        return self.agreed / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson_interval(self.agreed, self.n)

    @property
    def percent(self) -> str:
        return "n/a" if self.rate is None else f"{self.rate * 100:.1f}%"

    @property
    def interval_percent(self) -> str:
        if self.interval is None:
            return ""
        low, high = self.interval
        return f"{low * 100:.1f}–{high * 100:.1f}%"


def intervals_overlap(a: Accuracy, b: Accuracy) -> bool | None:
    """Whether the two 95% intervals share a point (None when either has no n)."""
    if a.interval is None or b.interval is None:
        return None
    return a.interval[0] <= b.interval[1] and b.interval[0] <= a.interval[1]


@dataclass(frozen=True)
class Difference:
    """Run B's accuracy against run A's, in percentage points (B minus A)."""

    a: Accuracy
    b: Accuracy

    @property
    def points(self) -> float | None:
        if self.a.rate is None or self.b.rate is None:
            return None
        return (self.b.rate - self.a.rate) * 100

    @property
    def points_text(self) -> str:
        return "n/a" if self.points is None else f"{self.points:+.1f} pts"

    @property
    def beyond_noise(self) -> bool | None:
        """True when the intervals do not overlap; None when either has nothing counted."""
        overlap = intervals_overlap(self.a, self.b)
        return None if overlap is None else not overlap

    @property
    def verdict(self) -> str:
        if self.beyond_noise is None:
            return "nothing to compare"
        if not self.beyond_noise:
            return WITHIN_NOISE
        return "B higher, beyond the noise" if self.points > 0 else "B lower, beyond the noise"


@dataclass(frozen=True)
class MethodRow:
    """One method's accuracy: overall, and per category (in `categories` order)."""

    key: str
    label: str
    overall: Accuracy
    cells: tuple[Accuracy, ...]


def _methods(figures: Mapping[str, Any], with_baselines: bool) -> list[tuple[str, str, Any]]:
    """(key, label, how to pick its figure from a group of figures) of each method."""
    methods: list[tuple[str, str, Any]] = [("debate", "Debate", lambda f: f.get("debate"))]
    if with_baselines:
        methods.append(("majority", "Majority vote", lambda f: f.get("majority")))
        agents = sorted((figures.get("accuracy") or {}).get("single_agent") or {})
        methods += [
            (
                f"single_agent:{agent}",
                f"Single agent: {agent}",
                lambda f, agent=agent: (f.get("single_agent") or {}).get(agent),
            )
            for agent in agents
        ]
    return methods


def categories_of(figures: Mapping[str, Any]) -> list[str]:
    return sorted(figures.get("by_category") or {})


def method_rows(
    figures: Mapping[str, Any], *, with_baselines: bool, categories: list[str] | None = None
) -> list[MethodRow]:
    """Each method's accuracy from a run's figures (`question_sets.run_figures`): the debate
    always, the majority vote and every single agent when the run has baselines."""
    categories = categories_of(figures) if categories is None else categories
    by_category = figures.get("by_category") or {}
    return [
        MethodRow(
            key=key,
            label=label,
            overall=Accuracy.of(pick(figures.get("accuracy") or {})),
            cells=tuple(Accuracy.of(pick(by_category.get(c) or {})) for c in categories),
        )
        for key, label, pick in _methods(figures, with_baselines)
    ]


@dataclass(frozen=True)
class ComparedRow:
    key: str
    label: str
    overall: Difference
    cells: tuple[Difference, ...]


@dataclass(frozen=True)
class Comparison:
    categories: list[str]
    rows: list[ComparedRow]


def compare(
    a: Mapping[str, Any], b: Mapping[str, Any], *, a_baselines: bool, b_baselines: bool
) -> Comparison:
    """Two runs' figures side by side: every method and category either run has (a method or
    category one run lacks counts nothing there: "nothing to compare")."""
    categories = sorted(set(categories_of(a)) | set(categories_of(b)))
    rows_a = {r.key: r for r in method_rows(a, with_baselines=a_baselines, categories=categories)}
    rows_b = {r.key: r for r in method_rows(b, with_baselines=b_baselines, categories=categories)}
    empty = MethodRow("", "", Accuracy(), tuple(Accuracy() for _ in categories))
    keys = list(rows_a) + [k for k in rows_b if k not in rows_a]
    rows = []
    for key in keys:
        ra, rb = rows_a.get(key, empty), rows_b.get(key, empty)
        rows.append(
            ComparedRow(
                key=key,
                label=(ra.label or rb.label),
                overall=Difference(ra.overall, rb.overall),
                cells=tuple(Difference(x, y) for x, y in zip(ra.cells, rb.cells, strict=True)),
            )
        )
    return Comparison(categories=categories, rows=rows)
