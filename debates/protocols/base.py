"""What every protocol shares: the participants it is given, the calls it asks for, its outcome.

A protocol is plain Python. It is a generator of `Step`s: each step is a set of LLM calls that
do not depend on each other (the runner makes them concurrently); the runner sends back the
parsed result of every call in the step, keyed by `CallRequest.key`, and the protocol decides
what to ask next. It knows nothing of Django, Celery or the gateway, so it can be driven by a
scripted LLM in a test, and a re-run can feed it stored results instead of new calls.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

from debates.rules import Decision


@dataclass(frozen=True)
class ParticipantSpec:
    slug: str
    name: str
    role: str
    system_prompt: str
    model: str
    temperature: float = 0.2
    can_veto: bool = False
    veto_risk_threshold: int = 50
    guiding_question: str = ""


@dataclass(frozen=True)
class CallRequest:
    key: str
    participant: str
    round_number: int
    step: str
    messages: tuple[dict[str, str], ...]
    target: str | None = None


@dataclass(frozen=True)
class Step:
    round_number: int
    round_name: str
    calls: tuple[CallRequest, ...]


@dataclass(frozen=True)
class FinalVote:
    participant: str
    decision: str
    confidence: float
    risk: float
    reasoning: str


@dataclass(frozen=True)
class Outcome:
    votes: tuple[FinalVote, ...]
    decision: Decision
    final_round_number: int
    final_round_name: str
    extra: dict[str, Any] = field(default_factory=dict)


Results = dict[str, dict[str, Any]]
StepGenerator = Generator[Step, Results, Outcome]


class ProtocolError(ValueError):
    """The protocol cannot run with what it was given (e.g. too few participants)."""
