"""Parsing the replies of the moderated and round-robin debates: forgiving about format, strict
about meaning (a stance is never guessed from prose)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.parsing import parse_unit_interval
from protocols.moderated.parsing import (
    parse_argument,
    parse_moderation,
    parse_synthesis,
)
from protocols.round_robin.parsing import TURN_FAILSAFE_STANCE, parse_turn

INVESTMENT = ("BUY", "HOLD", "SELL")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (0.8, 0.8),
        ("0.8", 0.8),
        (1, 1.0),
        ("1", 1.0),
        (0, 0.0),
        ("80%", 0.8),
        (80, 0.8),
        (1.0, 1.0),
        (150, 1.0),
        ("high", None),
        (True, None),
        (None, None),
    ],
)
def test_unit_interval_reads_zero_to_one_confidences_including_whole_one(raw, expected):
    assert parse_unit_interval(raw) == expected


# --- arguments --------------------------------------------------------------------------------


def test_an_argument_in_a_code_fence_with_prose_is_read():
    reply = (
        'Here is my argument:\n```json\n{"Content": "Reviews catch defects.", '
        '"confidence": "85%", "evidence": "A 2019 survey found fewer defects."}\n```'
    )
    a = parse_argument(reply)
    assert (a.content, a.confidence, a.parse_failed) == ("Reviews catch defects.", 0.85, False)
    assert a.supporting_evidence == ("A 2019 survey found fewer defects.",)
    assert a.side is None


def test_an_argument_without_evidence_is_kept_with_a_note():
    a = parse_argument('{"content": "Trust me.", "confidence": 0.9}')
    assert not a.parse_failed and a.supporting_evidence == ()
    assert "no supporting evidence given" in a.notes


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        ('{"confidence": 0.9, "supporting_evidence": []}', "content missing"),
        ('{"content": "x", "confidence": "very"}', "is not a number"),
        ("I strongly support this.", "no JSON object"),
        ("", "empty reply"),
    ],
)
def test_an_unreadable_argument_fails_with_no_weight(reply, error):
    a = parse_argument(reply)
    assert a.parse_failed and a.confidence == 0.0
    assert error in a.error


def test_a_side_is_read_only_from_the_allowed_labels():
    sides = ("SUPPORT", "OPPOSE", "NEUTRAL")
    assert (
        parse_argument('{"side": "oppose", "content": "x", "confidence": 0.5}', sides=sides).side
        == "OPPOSE"
    )
    a = parse_argument('{"side": "mostly for", "content": "x", "confidence": 0.5}', sides=sides)
    assert a.side == "NEUTRAL" and not a.parse_failed
    assert any("read as NEUTRAL" in n for n in a.notes)


def test_evidence_lists_are_cleaned_and_bounded():
    items = ["  a   b  ", "", 42, {"source": "report"}, *[f"item {i}" for i in range(12)]]
    a = parse_argument(json.dumps({"content": "x", "confidence": 0.5, "evidence": items}))
    assert a.supporting_evidence[:3] == ("a b", "42", "source: report")
    assert len(a.supporting_evidence) == 10


# --- moderation -------------------------------------------------------------------------------


def test_a_moderation_is_read_with_its_scores_flag_and_points():
    m = parse_moderation(
        json.dumps(
            {
                "proponent_quality": 0.8,
                "con_quality": "60%",
                "consensus_reached": "yes",
                "leaning": "support",
                "open_points": ["cost"],
                "confidence": 0.7,
                "summary": "ok",
            }
        )
    )
    assert (m.pro_quality, m.con_quality, m.consensus_reached) == (0.8, 0.6, True)
    assert (m.leaning, m.open_points, m.confidence, m.parse_failed) == (
        "SUPPORT",
        ("cost",),
        0.7,
        False,
    )


def test_a_moderation_without_confidence_fails_and_cannot_end_the_debate():
    m = parse_moderation('{"pro_quality": 0.9, "consensus_reached": true}')
    assert m.parse_failed and m.confidence == 0.0 and m.consensus_reached is False


def test_missing_scores_and_odd_leanings_are_not_invented():
    m = parse_moderation('{"confidence": 0.6, "leaning": "towards yes"}')
    assert (m.pro_quality, m.con_quality, m.leaning) == (None, None, "NEUTRAL")
    assert not m.parse_failed


# --- synthesis --------------------------------------------------------------------------------


def test_a_synthesis_is_read_with_its_lists():
    s = parse_synthesis(
        '{"synthesis": "Both agree on cost.", "agreements": ["cost"], '
        '"open_questions": "timing", "confidence": 0.6}'
    )
    assert (s.synthesis, s.agreements, s.open_questions, s.confidence) == (
        "Both agree on cost.",
        ("cost",),
        ("timing",),
        0.6,
    )
    assert parse_synthesis('{"agreements": []}').parse_failed


# --- round-robin turns ------------------------------------------------------------------------


def test_a_turn_is_read_from_its_stance_field():
    t = parse_turn(
        '{"stance": "**Hold**", "confidence": 0.7, "risk": "40%", '
        '"reasoning": "wait", "responds_to": ["Sentiment Agent"]}',
        stances=INVESTMENT,
    )
    assert (t.stance, t.confidence, t.risk, t.parse_failed) == ("HOLD", 70.0, 40.0, False)
    assert t.responds_to == ("Sentiment Agent",)


def test_decision_and_recommendation_are_accepted_names_for_the_stance():
    assert (
        parse_turn(
            '{"recommendation": "SELL", "confidence": 60, "risk": 50}', stances=INVESTMENT
        ).stance
        == "SELL"
    )


@pytest.mark.parametrize(
    "reply",
    [
        '{"stance": "STRONG BUY", "confidence": 80, "risk": 20}',
        '{"stance": "ACT", "confidence": 80, "risk": 20}',
        '{"confidence": 80, "risk": 20, "reasoning": "I would buy"}',
        "I would BUY this stock with confidence 80 and risk 20.",
        '{"stance": "BUY", "risk": 20}',
    ],
    ids=["not-a-label", "other-set", "stance-only-in-prose", "no-json", "no-confidence"],
)
def test_a_stance_is_never_guessed(reply):
    t = parse_turn(reply, stances=INVESTMENT)
    assert t.parse_failed and t.stance == TURN_FAILSAFE_STANCE
    assert t.error


@given(st.text(max_size=300))
def test_turn_parsing_never_raises_and_only_yields_allowed_stances(text):
    t = parse_turn(text, stances=INVESTMENT)
    assert t.stance in (*INVESTMENT, TURN_FAILSAFE_STANCE)
    assert 0 <= t.confidence <= 100 and 0 <= t.risk <= 100


@given(st.text(max_size=300))
def test_argument_parsing_never_raises(text):
    a = parse_argument(text, sides=("SUPPORT", "OPPOSE", "NEUTRAL"))
    assert 0 <= a.confidence <= 1
    assert parse_moderation(text).confidence <= 1
