"""What every protocol shares: the participants it is given, the calls it asks for, its outcome.

A protocol is plain Python. It is a generator of `Step`s: each step is a set of LLM calls that
do not depend on each other (the runner makes them concurrently); the runner sends back the
typed reply of every call in the step (`StatementReply` or `ChallengeReply`, as the protocol's
`parse` read it), keyed by `CallRequest.key`, and the protocol decides what to ask next. It
knows nothing of Django, Celery or the gateway, so it can be driven by a scripted LLM in a
test, and a re-run can feed it stored replies (`load`) instead of new calls.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

from protocols.decision import Decision
from protocols.presentation import Presentation

if TYPE_CHECKING:
    from protocols.charts import ChartSpec


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
    """One LLM call. `key` is unique and deterministic within a debate: a re-run finds it stored.

    `step` names what the call produces (and the kind of row stored for it); `previous_key`
    names an earlier call whose decision this one revises (shown as "changed from ...").
    """

    key: str
    participant: str
    round_number: int
    step: str
    messages: tuple[dict[str, str], ...]
    target: str | None = None
    previous_key: str | None = None


@dataclass(frozen=True)
class Step:
    """Calls that do not depend on each other. A round may take several steps (moderated:
    arguments, then the moderator); `closes_round` is False on all but the last of them."""

    round_number: int
    round_name: str
    calls: tuple[CallRequest, ...]
    closes_round: bool = True


@dataclass(frozen=True)
class FinalVote:
    participant: str
    decision: str
    confidence: float
    risk: float
    reasoning: str
    statement_key: str | None = None


@dataclass(frozen=True)
class StatementReply:
    """A reply that takes a position (an analysis, an argument, a turn ...): stored as a
    `Statement` of the call's step. `details` holds what only its protocol has (evidence,
    scores ...); `as_json()` is the call's stored result, which a re-run reads back."""

    decision: str
    confidence: float
    risk: float | None
    reasoning: str
    parse_failed: bool
    error: str = ""
    notes: tuple[str, ...] = ()
    details: Mapping[str, Any] | None = None

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "decision": self.decision,
            "confidence": self.confidence,
            "risk": self.risk,
            "reasoning": self.reasoning,
            "parse_failed": self.parse_failed,
            "error": self.error,
            "notes": list(self.notes),
        }
        if self.details is not None:
            data["details"] = dict(self.details)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StatementReply:
        """The reply back from its stored result (a re-run resumes from these)."""
        return cls(
            decision=data["decision"],
            confidence=data["confidence"],
            risk=data["risk"],
            reasoning=data["reasoning"],
            parse_failed=data["parse_failed"],
            error=data.get("error", ""),
            notes=tuple(data.get("notes", ())),
            details=data.get("details"),
        )


@dataclass(frozen=True)
class ChallengeReply:
    """A reply that challenges the call's `target`: stored as a `Challenge`.
    `agrees_with_conclusion`: the challenger still agrees with the target's conclusion."""

    stance: str
    argument: str
    suggested_decision: str
    parse_failed: bool
    error: str = ""
    agrees_with_conclusion: bool = False

    def as_json(self) -> dict[str, Any]:
        return {
            "stance": self.stance,
            "argument": self.argument,
            "suggested_decision": self.suggested_decision,
            "parse_failed": self.parse_failed,
            "error": self.error,
            "agrees_with_conclusion": self.agrees_with_conclusion,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ChallengeReply:
        return cls(
            stance=data["stance"],
            argument=data["argument"],
            suggested_decision=data["suggested_decision"],
            parse_failed=data["parse_failed"],
            error=data.get("error", ""),
            agrees_with_conclusion=data.get("agrees_with_conclusion", data["stance"] == "agree"),
        )


Reply = StatementReply | ChallengeReply


@dataclass(frozen=True)
class Answer:
    """One agent's position as a debate stored it, for evaluation and replay: its decision (or
    side, or stance), confidence and risk on 0-100 (risk None where none is assessed), and for
    moderated arguments the role and the supporting evidence."""

    agent: str
    decision: str
    confidence: float
    risk: float | None = None
    parse_failed: bool = False
    role: str = ""
    evidence: tuple[str, ...] = ()


def clamped_score(value: float | None) -> float:
    """A stored score (confidence, risk) as a protocol's rules accept it: 0-100, None as 0."""
    return min(max(float(value or 0), 0.0), 100.0)


@dataclass(frozen=True)
class Outcome:
    """How a debate ended: its final votes (none where the protocol casts none), what its rules
    decided (one of the protocol's `decisions`) and the round the decision closes."""

    votes: tuple[FinalVote, ...]
    decision: Decision
    final_round_number: int
    final_round_name: str
    extra: dict[str, Any] = field(default_factory=dict)

    def metadata(self, stored: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The debate's metadata: what was `stored` before it ran, the rules' audit record and
        what the protocol adds (`extra`)."""
        return {**(stored or {}), **self.decision.metadata, **self.extra}


#: What a step's calls returned, by call key.
Results = dict[str, Reply]
StepGenerator = Generator[Step, Results, Outcome]


class ProtocolError(ValueError):
    """The protocol cannot run with what it was given (e.g. too few participants)."""


class DebateProtocol(abc.ABC):
    """One way to debate. A protocol is plain Python: given the question and the participants
    it yields `Step`s of calls (`run`), reads each reply into a typed `Reply` (`parse`) and
    returns an `Outcome`. Its package also holds its decision rules, its reply parsing, its
    offline responders, its `presentation` and its `charts`, and says what evaluation and
    replay need of it (`rules_module`, `independent_decision`, `majority_decision`,
    `replay_decision`). The registry (`protocols`) lists the concrete classes; nothing else
    needs to know them: callers ask the class, never compare its name.
    """

    name: ClassVar[str]
    label: ClassVar[str]
    description: ClassVar[str] = ""
    decisions: ClassVar[tuple[str, ...]]
    min_participants: ClassVar[int]
    max_participants: ClassVar[int]
    #: The roles its agents must have, in words (checked when a debate is created).
    roles_needed: ClassVar[str] = "any roles"
    options_schema: ClassVar[dict[str, Any]] = {}
    #: Not a protocol of its own: resolved to a concrete one when a debate is created.
    is_selector: ClassVar[bool] = False
    #: How its debates are shown (live page, transcripts, export).
    presentation: ClassVar[Presentation] = Presentation()
    #: The offline model's scripted answer for each of its steps (see `agents.responders`).
    offline_responders: ClassVar[Mapping[str, Callable[..., str]]] = {}
    #: A request body that starts one of its debates with the shipped agents, shown in the
    #: API's documentation: {"title": ..., "value": {...}} (None: no example).
    api_example: ClassVar[Mapping[str, Any] | None] = None

    # --- what the debate page's charts ask of it ----------------------------------------------

    #: What an agent's position is called on the page ("side" in a moderated debate).
    position_noun: ClassVar[str] = "position"
    #: Where its rules record how much the agents agreed: the decision metadata's key and the
    #: factor that makes it a percentage (the analytics page's agreement chart). None: nowhere.
    agreement_metadata: ClassVar[tuple[str, float] | None] = None

    @classmethod
    def charts(cls, so_far) -> list[ChartSpec | None]:
        """Its own charts of the debate so far (a `debates.live` arrangement, read by attribute
        only), shown after every protocol's positions chart (see `protocols.charts`); None for
        a chart with nothing to show yet."""
        return []

    # --- what evaluation and replay ask of it (see `protocols.evaluation`) ---------------------

    #: The module of its pure decision rules: the hash of its source is the rules version
    #: recorded with each debate. None: no rules of its own, so no baselines.
    rules_module: ClassVar[ModuleType | None] = None
    #: Its decision is a function of the final votes alone, so the current rules can be
    #: replayed on stored debates (`replay_decision`).
    replayable: ClassVar[bool] = False

    @classmethod
    def independent_decision(cls, answer: Answer) -> str:
        """The decision one agent's answer alone stands for, in the protocol's decision set."""
        return answer.decision

    @classmethod
    def majority_decision(cls, answers: Sequence[Answer], options: Mapping[str, Any]) -> str:
        """What its rules decide from the agents' independent answers alone, as if nobody had
        talked to anybody (`answers` is never empty). Needed with a `rules_module`."""
        raise NotImplementedError(f"{cls.__name__} has a rules_module but no majority_decision")

    @classmethod
    def replay_decision(cls, votes: Sequence[Answer], options: Mapping[str, Any]) -> str:
        """What the current rules decide from stored final votes (never empty). Needed when
        `replayable`."""
        raise NotImplementedError(f"{cls.__name__} is replayable but has no replay_decision")

    @classmethod
    def check_participants(cls, participants: Sequence[Any]) -> None:
        """Between `min_participants` and `max_participants` agents, with distinct slugs and
        names; otherwise `ProtocolError`. A protocol with role rules checks them after this."""
        if not cls.min_participants <= len(participants) <= cls.max_participants:
            raise ProtocolError(
                f"{cls.name} needs {cls.min_participants} to {cls.max_participants} agents; "
                f"got {len(participants)}."
            )
        for attr in ("slug", "name"):
            values = [getattr(p, attr) for p in participants]
            if len(set(values)) != len(values):
                raise ProtocolError(f"Each agent needs a distinct {attr}; got {values}.")

    @classmethod
    def agreement_percent(cls, metadata: Mapping[str, Any]) -> float | None:
        """How much the agents agreed on the decision, in percent, from a finished debate's
        metadata (`agreement_metadata`); None when its rules record none."""
        if cls.agreement_metadata is None:
            return None
        key, factor = cls.agreement_metadata
        value = metadata.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        return round(float(value) * factor, 4)

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> None:
        """Rules across options, once each option is valid alone. Raises `OptionError`."""
        return None

    @abc.abstractmethod
    def __init__(
        self,
        *,
        query: str,
        participants: list[ParticipantSpec],
        complex_query: bool = False,
        options: dict[str, Any] | None = None,
    ): ...

    @abc.abstractmethod
    def run(self) -> StepGenerator:
        """Yield steps, receive each step's replies (by call key), return the outcome."""

    @abc.abstractmethod
    def parse(self, request: CallRequest, raw: str) -> Reply:
        """Read one reply. Never raises on what a model wrote."""

    def load(self, request: CallRequest, stored: Mapping[str, Any]) -> Reply:
        """A reply stored by an earlier run (`Reply.as_json()`), for a re-run to resume."""
        if request.target is not None:
            return ChallengeReply.from_json(stored)
        return StatementReply.from_json(stored)


# --- options ------------------------------------------------------------------------------------
#
# A protocol's `options_schema` maps each option name to a plain dict:
#   {"type": "int" | "float" | "str", "default": ..., "description": "...",
#    optional "min"/"max" (inclusive bounds for numbers; length bounds for text),
#    optional "choices" (allowed values)}.
# `validate_options` checks what a user gave against it and fills in the defaults.

MODEL_OPTION: dict[str, Any] = {
    "type": "str",
    "default": "",
    "max": 200,
    "description": (
        "Default model for this debate's agents (a litellm model string such as "
        "openai/gpt-4o-mini). An agent's own model wins; empty: the service default."
    ),
}

_TRUE_TEXT = {"true", "yes", "on", "1"}
_FALSE_TEXT = {"false", "no", "off", "0"}


class OptionError(ValueError):
    """Options a protocol cannot accept. `errors` maps each bad option to what to fix."""

    def __init__(self, errors: dict[str, str]):
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = errors


def _coerce(name: str, spec: Mapping[str, Any], value: Any) -> Any:
    kind = spec["type"]
    if kind == "int":
        if isinstance(value, str):
            try:
                value = int(value.strip())
            except ValueError:
                raise ValueError(f"must be a whole number, got {value!r}") from None
        elif isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"must be a whole number, got {value!r}")
    elif kind == "float":
        if isinstance(value, str):
            try:
                value = float(value.strip())
            except ValueError:
                raise ValueError(f"must be a number, got {value!r}") from None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"must be a number, got {value!r}")
        value = float(value)
        if not math.isfinite(value):
            raise ValueError("must be a finite number")
    elif kind == "bool":
        if isinstance(value, str) and value.strip().lower() in _TRUE_TEXT | _FALSE_TEXT:
            value = value.strip().lower() in _TRUE_TEXT
        if not isinstance(value, bool):
            raise ValueError(f"must be true or false, got {value!r}")
    elif kind == "str":
        if not isinstance(value, str):
            raise ValueError(f"must be text, got {value!r}")
        value = value.strip()
    else:  # pragma: no cover - a schema error, not a user error
        raise TypeError(f"option {name}: unknown type {kind!r}")

    if "choices" in spec and value not in spec["choices"]:
        allowed = ", ".join(str(c) for c in spec["choices"])
        raise ValueError(f"must be one of {allowed}, got {value!r}")
    low, high = spec.get("min"), spec.get("max")
    if kind in ("int", "float"):
        if low is not None and value < low or high is not None and value > high:
            raise ValueError(f"must be between {low:g} and {high:g}, got {value:g}")
    elif kind == "str" and high is not None and len(value) > high:
        raise ValueError(f"must be at most {high} characters, got {len(value)}")
    return value


def validate_options(
    schema: Mapping[str, Mapping[str, Any]], options: Mapping[str, Any] | None, *, protocol: str
) -> dict[str, Any]:
    """The effective options: what was given, checked and converted, plus every default.

    Raises `OptionError` naming each unknown or invalid option and what it accepts.
    """
    if options is not None and not isinstance(options, Mapping):
        raise OptionError({"options": "must be an object of option name -> value"})
    given = dict(options or {})
    errors: dict[str, str] = {}
    unknown = sorted(str(k) for k in given if k not in schema)
    if unknown:
        allowed = ", ".join(sorted(schema)) or "none"
        errors["options"] = (
            f"Unknown option(s) for {protocol}: {', '.join(unknown)}. Allowed: {allowed}."
        )
    effective: dict[str, Any] = {}
    for name, spec in schema.items():
        if name not in given:
            effective[name] = spec["default"]
            continue
        try:
            effective[name] = _coerce(name, spec, given[name])
        except ValueError as exc:
            errors[name] = f"{name} {exc}."
    if errors:
        raise OptionError(errors)
    return effective


def describe_options(schema: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The schema as a JSON-ready list, for listings (CLI, API, pages)."""
    return [{"name": name, **dict(spec)} for name, spec in schema.items()]
