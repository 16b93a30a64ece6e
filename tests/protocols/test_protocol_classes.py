"""What callers ask of every registered protocol's class, answered by each (no database): its
baselines and replay where it says it has them, in its own decision set; its rules return the
one shared `Decision` type."""

from __future__ import annotations

import pytest

from protocols import PROTOCOLS, protocol_for
from protocols.base import Answer, DebateProtocol
from protocols.decision import Decision

CONCRETE = [name for name, cls in PROTOCOLS.items() if not cls.is_selector]
RULES = {m.__name__: m for m in (PROTOCOLS[name].rules_module for name in CONCRETE)}


@pytest.mark.parametrize("name", CONCRETE)
def test_each_protocol_decides_its_baselines_and_replays_within_its_decisions(name):
    cls = PROTOCOLS[name]
    first = cls.decisions[0]
    answers = [Answer(agent, first, 80, 20, role="proponent") for agent in ("a", "b", "c")]
    assert cls.rules_module is not None
    assert cls.independent_decision(answers[0]) in cls.decisions
    assert cls.majority_decision(answers, {}) in cls.decisions
    if cls.replayable:
        assert cls.replay_decision(answers, {}) == first  # unanimous final votes
    else:
        with pytest.raises(NotImplementedError):
            cls.replay_decision(answers, {})


@pytest.mark.parametrize("name", sorted(RULES))
def test_every_rules_module_returns_the_shared_decision_type_checked_against_its_set(name):
    module = RULES[name]
    decision_types = [
        value
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, Decision) and value is not Decision
    ]
    assert len(decision_types) == 1
    (kind,) = decision_types
    assert kind.allowed == module.DECISIONS
    with pytest.raises(ValueError, match="decision must be one of"):
        kind("VETO", "a vote, never an outcome", {})


def test_a_name_no_longer_registered_gets_the_neutral_defaults():
    cls = protocol_for("retired")
    assert cls is DebateProtocol
    assert (cls.rules_module, cls.replayable, cls.charts(None)) == (None, False, [])
    assert cls.independent_decision(Answer("a", "MAYBE", 50)) == "MAYBE"
