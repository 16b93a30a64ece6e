"""The protocol registry: every way to debate the service knows, by name.

Each protocol is a package here (`s4/`, `vote/`, `moderated/`, `round_robin/`) holding its
steps, rules, reply parsing, offline responders, presentation, charts and baselines behind
`base.DebateProtocol`. Nothing outside a protocol's package and this registry knows it by name:
callers ask its class (`PROTOCOLS[name]`, or `protocol_for(name)` for a stored debate, which
falls back to the base class's neutral defaults for a name no longer registered).

Everything that offers a choice of protocol (the CLI, the admin, the API, the pages) reads
`PROTOCOLS` or `protocol_catalog()`; `debate_create` validates options with
`effective_options` and resolves `auto` with `resolve_protocol`, so the stored protocol is
always a concrete one. The live page, transcripts and export ask `presentation_for`; the
debate page's charts ask `charts`; evaluation and replay (`protocols.evaluation`) ask
`rules_module`, `independent_decision`, `majority_decision`, `replayable` and
`replay_decision`. Where no protocol is chosen, the setting `DEBATE_DEFAULT_PROTOCOL` names one.

Adding a protocol
-----------------
1. A package `protocols/<name>/` with a subclass of `base.DebateProtocol` (`protocol.py`):
   `name`, `label`, `description`, `decisions`, `min_participants` / `max_participants`,
   `roles_needed`, `options_schema`; `__init__` checks the participants (raise
   `ProtocolError`), `run` yields `base.Step`s of `base.CallRequest`s and returns an
   `base.Outcome`, `parse` reads one reply into a `base.StatementReply` (never raising on what
   a model wrote). A call's `CallRequest.step` is the kind of statement stored for it
   (`analysis`, `revision`, `argument`, `moderation`, `synthesis` or `turn`; a call with a
   `target` is stored as a challenge).
2. Beside it, what it needs of its own, imported only by its package: `rules.py` (pure
   decision rules returning a subclass of `decision.Decision` that names its decision set),
   `offline.py` (`offline_responders`: the offline model's answer for each `STEP:` its
   prompts open with), and where it has them `presentation.py` (`presentation`), `charts.py`
   (`charts(so_far)`: its own charts, built with `protocols.charts`), `baselines.py`.
3. For evaluation and replay: `rules_module = rules` and `majority_decision` (what its rules
   decide from the independent answers alone); `independent_decision` if one answer alone
   stands for another decision; `replayable = True` and `replay_decision` if its decision is a
   function of the final votes. For the charts: `position_noun` if its agents speak of sides
   (every confidence is stored and shown in percent, whatever scale its agents answer on).
4. One line: the class in `PROTOCOLS` below. The import contracts in `pyproject.toml` list the
   protocol packages (independent of each other, reached only through this registry): add it
   there too, and agents that take part in it (`Agent.protocols`, or the shipped ones in
   `agents/defaults.py`) if none does yet.
`tests/protocols/fifth/` is a protocol built this way, registered by its test alone.
"""

from __future__ import annotations

from typing import Any

from agents import responders
from protocols.base import (
    DebateProtocol,
    OptionError,
    ProtocolError,
    describe_options,
    validate_options,
)
from protocols.moderated import ModeratedExtendedProtocol, ModeratedProtocol
from protocols.presentation import Presentation
from protocols.round_robin import RoundRobinProtocol
from protocols.s4 import S4Protocol
from protocols.selection import ProtocolChoice, choose_protocol
from protocols.vote import VoteProtocol


class AutoProtocol(DebateProtocol):
    """Not a debate of its own: picks `round_robin` or `s4` from the question (its trigger
    keywords: docs/concepts/index.md#trigger-keywords) when the debate is created, and records
    the choice and why."""

    name = "auto"
    label = "Auto: round robin for investment/advice questions, otherwise S4"
    description = (
        "Picks round_robin when the question asks for an investment decision, recommendation, "
        "advice, opinion, strategy or assessment (its trigger keywords), otherwise s4. "
        "Options are those of the protocol it picks."
    )
    candidates = (RoundRobinProtocol.name, S4Protocol.name)
    decisions = tuple(dict.fromkeys(S4Protocol.decisions + RoundRobinProtocol.decisions))
    min_participants = min(S4Protocol.min_participants, RoundRobinProtocol.min_participants)
    max_participants = max(S4Protocol.max_participants, RoundRobinProtocol.max_participants)
    roles_needed = "those of the protocol it picks"
    options_schema: dict[str, Any] = {}
    is_selector = True
    api_example = {
        "title": "Let the service choose the protocol",
        "value": {"question": "Is it safe to mix bleach and vinegar?", "protocol": "auto"},
    }

    def __init__(self, **kwargs):
        raise ProtocolError("'auto' is resolved to a concrete protocol when a debate is created.")

    def run(self):  # pragma: no cover - never instantiated
        raise ProtocolError("'auto' does not run")

    def parse(self, request, raw):  # pragma: no cover - never instantiated
        raise ProtocolError("'auto' does not run")


PROTOCOLS: dict[str, type[DebateProtocol]] = {
    cls.name: cls
    for cls in (
        S4Protocol,
        ModeratedProtocol,
        ModeratedExtendedProtocol,
        RoundRobinProtocol,
        VoteProtocol,
        AutoProtocol,
    )
}


def get_protocol(name: str):
    try:
        return PROTOCOLS[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(PROTOCOLS))
        raise ProtocolError(f"Unknown protocol '{name}'. Known protocols: {known}.") from None


def protocol_for(name: str) -> type[DebateProtocol]:
    """The class of protocol `name`, or the base class (its neutral defaults) for a name no
    longer registered: what pages, charts and evaluation ask of a stored debate's protocol."""
    return PROTOCOLS.get(name, DebateProtocol)


def resolve_protocol(
    name: str, query: str, *, fallback: str = "s4"
) -> tuple[type, ProtocolChoice | None]:
    """The concrete protocol class for `name`; for `auto`, also the choice and its reason
    (`fallback`: what `auto` picks when no trigger keyword matches, s4 or vote)."""
    cls = get_protocol(name)
    if cls.is_selector:
        choice = choose_protocol(query, fallback=fallback)
        return PROTOCOLS[choice.chosen], choice
    return cls, None


def effective_options(protocol_cls, options: dict[str, Any] | None) -> dict[str, Any]:
    """Options checked and converted, with every default filled in. Raises `OptionError`."""
    effective = validate_options(protocol_cls.options_schema, options, protocol=protocol_cls.name)
    protocol_cls.check_options(effective)
    return effective


def presentation_for(name: str) -> Presentation:
    """How debates of protocol `name` are shown (a neutral default for an unknown name)."""
    return protocol_for(name).presentation


def register_offline_responders() -> None:
    """Teach the offline model every protocol's steps (called once, when Django starts)."""
    for cls in PROTOCOLS.values():
        responders.register(cls.offline_responders)


def protocol_catalog() -> list[dict[str, Any]]:
    """Every protocol with its decisions, agent count and options (name, type, default ...)."""
    return [
        {
            "name": cls.name,
            "label": cls.label,
            "description": cls.description,
            "decisions": list(cls.decisions),
            "min_participants": cls.min_participants,
            "max_participants": cls.max_participants,
            "roles_needed": cls.roles_needed,
            "options": describe_options(cls.options_schema),
            "selector": cls.is_selector,
        }
        for cls in PROTOCOLS.values()
    ]


__all__ = [
    "PROTOCOLS",
    "DebateProtocol",
    "OptionError",
    "ProtocolError",
    "effective_options",
    "get_protocol",
    "presentation_for",
    "protocol_for",
    "protocol_catalog",
    "register_offline_responders",
    "resolve_protocol",
]
