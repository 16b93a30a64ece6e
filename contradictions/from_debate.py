"""Reports taken from a completed debate. Plain Python.

A debate's agents state positions, not figures with citations, so the claims are derived from
what each agent stated in its final position (its vote, or its last statement when the
protocol has no votes), and from nothing else (no figures are mined from prose):

* ``position`` (qualitative): the agent's decision as an interpretation (act / warn / refuse,
  support / uncertain / oppose, buy / hold / sell ...), so opposite positions are an
  ``interpretation_conflict`` and neighbouring ones a milder one;
* ``risk`` (when the protocol assesses risk): the agent's risk, 0-100, unit ``points``, so
  risks far apart are a ``value_gap``.

Each claim cites the first sentence of the agent's reasoning; its source is the debate, its
period the day the debate completed, its confidence (and the report's) the agent's confidence
/ 100. Reports attached to a debate by a client (the API's ``debate`` with ``reports``) are
taken as given instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from contradictions.inputs import FindingInput, ReportInput

MAX_CITATION = 300


@dataclass(frozen=True)
class Position:
    agent: str
    decision: str
    confidence: float  # 0-100
    risk: float | None
    reasoning: str


def _first_sentence(text: str) -> str:
    text = " ".join((text or "").split())
    for stop in (". ", "! ", "? "):
        if stop in text:
            text = text.split(stop, 1)[0] + stop.strip()
            break
    return text if len(text) <= MAX_CITATION else text[: MAX_CITATION - 3] + "..."


def reports_from_positions(
    positions: Sequence[Position], *, source: str, period: str
) -> list[ReportInput]:
    reports = []
    for p in positions:
        confidence = round(min(max(p.confidence, 0.0), 100.0) / 100.0, 4)
        citation = _first_sentence(p.reasoning)
        findings = [
            FindingInput(
                metric="position",
                interpretation=p.decision.lower()[:50],
                citation=citation,
                source=source,
                period=period,
                confidence=confidence,
                text=f"{p.agent} decided {p.decision}",
            )
        ]
        if p.risk is not None:
            findings.append(
                FindingInput(
                    metric="risk",
                    value=Decimal(str(round(p.risk, 4))),
                    unit="points",
                    citation=citation,
                    source=source,
                    period=period,
                    confidence=confidence,
                    text=f"{p.agent} assessed the risk at {p.risk:g} of 100",
                )
            )
        reports.append(ReportInput(agent=p.agent, confidence=confidence, findings=tuple(findings)))
    return reports
