"""Reading S4 replies (protocols/s4/parsing.py): an agent's decision and a challenge,
tolerant of format, strict about meaning, REFUSE when unreadable."""

import dataclasses
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocols.s4.parsing import (
    DECISIONS,
    FAILSAFE,
    FAILSAFE_REASONING,
    MAX_ARGUMENT_LENGTH,
    ParsedChallenge,
    ParsedDecision,
    parse_agent_decision,
    parse_challenge,
)

VALID = '{"decision": "ACT", "confidence": 75, "risk": 20, "reasoning": "Low risk."}'

# ---------------------------------------------------------------------------
# parse_agent_decision: accepted reply shapes
# ---------------------------------------------------------------------------

REPLY_SHAPES = [
    pytest.param(VALID, ("ACT", 75, 20, "Low risk."), id="plain-json"),
    pytest.param(f"```json\n{VALID}\n```", ("ACT", 75, 20, "Low risk."), id="json-fence"),
    pytest.param(f"```\n{VALID}\n```", ("ACT", 75, 20, "Low risk."), id="bare-fence"),
    pytest.param(
        f"Here is my analysis.\n\n{VALID}\n\nLet me know if you need more.",
        ("ACT", 75, 20, "Low risk."),
        id="prose-around",
    ),
    pytest.param(
        '{"decision": "WARN", "confidence": "75%", "risk": "20 %", "reasoning": "r"}',
        ("WARN", 75, 20, "r"),
        id="percent-strings",
    ),
    pytest.param(
        '{"decision": "ACT", "confidence": 0.75, "risk": 0.2, "reasoning": "r"}',
        ("ACT", 75, 20, "r"),
        id="fractions",
    ),
    pytest.param(
        '{"decision": "ACT", "confidence": 1, "risk": 0, "reasoning": "r"}',
        ("ACT", 1, 0, "r"),
        id="integer-one-is-a-percentage",
    ),
    pytest.param(
        '{"decision": "**WARN**", "confidence": 60, "risk": 40, "reasoning": "r"}',
        ("WARN", 60, 40, "r"),
        id="markdown-label",
    ),
    pytest.param(
        '{"decision": "act.", "confidence": 60, "risk": 10, "reasoning": "r"}',
        ("ACT", 60, 10, "r"),
        id="lower-case-label-with-period",
    ),
    pytest.param(
        '{"decision": "VETO", "confidence": 90, "risk": 80, "reasoning": "r",'
        ' "details": {"factors": [{"name": "harm", "weight": 0.9}], "note": "a {brace}"}}',
        ("VETO", 90, 80, "r"),
        id="nested-objects",
    ),
    pytest.param(
        '{"decision": "ACT", "confidence": 70, "risk": 10, "reasoning": "first"}\n'
        '{"decision": "REFUSE", "confidence": 90, "risk": 90, "reasoning": "second"}',
        ("ACT", 70, 10, "first"),
        id="two-objects-first-wins",
    ),
    pytest.param(
        'Schema: {"type": "object"}\n'
        '{"decision": "WARN", "confidence": 55, "risk": 45, "reasoning": "answer"}',
        ("WARN", 55, 45, "answer"),
        id="first-object-with-decision-wins",
    ),
    pytest.param(
        '{"decision": "REFUSE", "confidence": 80, "risk": 70, "reasoning": "r",}',
        ("REFUSE", 80, 70, "r"),
        id="trailing-comma",
    ),
    pytest.param(
        "{'decision': 'WARN', 'confidence': 65, 'risk': 35, 'reasoning': \"it's fine\"}",
        ("WARN", 65, 35, "it's fine"),
        id="single-quotes",
    ),
    pytest.param(
        '{"DECISION": "ACT", "Confidence": 75, "RISK": 20, "Reasoning": "r"}',
        ("ACT", 75, 20, "r"),
        id="upper-case-keys",
    ),
    pytest.param(
        '{"decision": "ACT", "confidence": 130, "risk": -10, "reasoning": "r"}',
        ("ACT", 100, 0, "r"),
        id="out-of-range-clamped",
    ),
    pytest.param(
        '{"decision": "WARN", "confidence": "7.5/10", "risk": "30/100", "reasoning": "r"}',
        ("WARN", 75, 30, "r"),
        id="ratios",
    ),
    pytest.param(
        '{"decision": "WARN", "confidence": 70, "risk_level": 30, "rationale": "why"}',
        ("WARN", 70, 30, "why"),
        id="risk-level-and-rationale-aliases",
    ),
    pytest.param(
        '{"decision": "ACT", "confidence": 70, "risk_score": "5%", "explanation": "why"}',
        ("ACT", 70, 5, "why"),
        id="risk-score-and-explanation-aliases",
    ),
    pytest.param(
        '{"decision": "ACT", "confidence": 70, "risk": 10}',
        ("ACT", 70, 10, ""),
        id="reasoning-missing",
    ),
    pytest.param(
        "Decision: WARN\nConfidence: 70%\nRisk: 30%\nReasoning: Some concerns.\nSecond line.",
        ("WARN", 70, 30, "Some concerns.\nSecond line."),
        id="key-value-prose",
    ),
    pytest.param(
        "**Decision:** REFUSE\n**Confidence:** 0.8\n**Risk Level:** 65\n**Rationale:** Unsafe.",
        ("REFUSE", 80, 65, "Unsafe."),
        id="markdown-key-value-prose",
    ),
    pytest.param(
        '{"decision": "ACT", "confidence": 75, "risk": 20, "reasoning": ["a", "b"]}',
        ("ACT", 75, 20, "a b"),
        id="reasoning-as-list",
    ),
    pytest.param(
        '"{\\"decision\\": \\"ACT\\", \\"confidence\\": 75, \\"risk\\": 20}"',
        ("ACT", 75, 20, ""),
        id="json-encoded-string",
    ),
]


@pytest.mark.parametrize(("text", "expected"), REPLY_SHAPES)
def test_parse_agent_decision_accepts_reply_shape(text, expected):
    result = parse_agent_decision(text)
    decision, confidence, risk, reasoning = expected
    assert result.parse_failed is False, result.error
    assert result.error == ""
    assert (result.decision, result.confidence, result.risk, result.reasoning) == (
        decision,
        float(confidence),
        float(risk),
        reasoning,
    )
    assert isinstance(result.confidence, float)
    assert isinstance(result.risk, float)


def test_parse_agent_decision_notes_fraction_reading():
    result = parse_agent_decision('{"decision": "ACT", "confidence": 0.75, "risk": 20}')
    assert "confidence given as fraction 0.75, read as 75" in result.notes


def test_parse_agent_decision_notes_clamping():
    result = parse_agent_decision('{"decision": "ACT", "confidence": 130, "risk": -5}')
    assert "confidence 130 clamped to 100" in result.notes
    assert "risk -5 clamped to 0" in result.notes


def test_parse_agent_decision_notes_missing_reasoning():
    result = parse_agent_decision('{"decision": "ACT", "confidence": 70, "risk": 10}')
    assert "reasoning missing" in result.notes


def test_parse_agent_decision_notes_which_of_several_objects_was_used():
    text = '{"schema": 1} {"decision": "ACT", "confidence": 70, "risk": 10, "reasoning": "r"}'
    result = parse_agent_decision(text)
    assert result.decision == "ACT"
    assert "reply contained 2 JSON objects; used object 2" in result.notes


def test_parse_agent_decision_has_no_notes_for_a_clean_reply():
    assert parse_agent_decision(VALID).notes == ()


def test_parse_agent_decision_honours_custom_allowed_labels():
    text = '{"decision": "ABSTAIN", "confidence": 50, "risk": 50, "reasoning": "r"}'
    assert parse_agent_decision(text, allowed=("ABSTAIN", "ACT")).decision == "ABSTAIN"
    assert parse_agent_decision(text).parse_failed is True


# ---------------------------------------------------------------------------
# parse_agent_decision: fail-safe
# ---------------------------------------------------------------------------


def test_failsafe_defaults_to_refuse_with_moderate_confidence_and_high_risk():
    assert (FAILSAFE.decision, FAILSAFE.confidence, FAILSAFE.risk) == ("REFUSE", 50.0, 75.0)
    assert FAILSAFE.reasoning == "Failed to analyze - defaulting to REFUSE for safety"
    assert FAILSAFE.reasoning == FAILSAFE_REASONING
    assert FAILSAFE.parse_failed is True


def test_parsed_decision_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        FAILSAFE.decision = "ACT"  # type: ignore[misc]


FAILURES = [
    pytest.param("", "empty reply", id="empty"),
    pytest.param("   \n\t", "empty reply", id="whitespace"),
    pytest.param("I think we should act.", "no JSON object found", id="garbage-prose"),
    pytest.param("{decision: ACT}", "no JSON object found", id="unparseable-braces"),
    pytest.param(
        '[{"decision": "ACT", "confidence": 75, "risk": 20}]',
        "reply is a JSON array, not an object",
        id="json-array",
    ),
    pytest.param(
        '```json\n[{"decision": "ACT", "confidence": 75, "risk": 20}]\n```',
        "reply is a JSON array, not an object",
        id="fenced-json-array",
    ),
    pytest.param(
        '{"decision": "MAYBE", "confidence": 75, "risk": 20}',
        "decision 'MAYBE' is not one of ACT, WARN, REFUSE, VETO",
        id="invalid-decision",
    ),
    pytest.param(
        '{"decision": "ACTION", "confidence": 75, "risk": 20}',
        "decision 'ACTION' is not one of ACT, WARN, REFUSE, VETO",
        id="no-substring-guessing",
    ),
    pytest.param('{"confidence": 75, "risk": 20}', "decision missing", id="decision-missing"),
    pytest.param(
        '{"decision": null, "confidence": 75, "risk": 20}', "decision missing", id="decision-null"
    ),
    pytest.param('{"decision": "ACT", "risk": 20}', "confidence missing", id="confidence-missing"),
    pytest.param('{"decision": "ACT", "confidence": 75}', "risk missing", id="risk-missing"),
    pytest.param(
        '{"decision": "ACT", "confidence": "high", "risk": 20}',
        "confidence 'high' is not a number",
        id="confidence-not-numeric",
    ),
    pytest.param(
        '{"decision": "ACT", "confidence": true, "risk": 20}',
        "confidence True is not a number",
        id="confidence-bool",
    ),
    pytest.param(
        '{"decision": 3, "confidence": 75, "risk": 20}',
        "decision 3 is not one of",
        id="decision-not-string",
    ),
    pytest.param('{"answer": "ACT"}', "decision missing", id="unrelated-object"),
    pytest.param(
        "Decision: PERHAPS\nConfidence: 70%\nRisk: 20%",
        "decision 'PERHAPS' is not one of",
        id="key-value-prose-invalid-label",
    ),
    pytest.param(
        "Confidence: 70%\nRisk: 20%", "no JSON object found", id="key-value-prose-without-decision"
    ),
]


@pytest.mark.parametrize(("text", "error"), FAILURES)
def test_parse_agent_decision_falls_back_to_refuse_and_explains(text, error):
    result = parse_agent_decision(text)
    assert result.parse_failed is True
    assert (result.decision, result.confidence, result.risk) == ("REFUSE", 50.0, 75.0)
    assert result.reasoning == FAILSAFE_REASONING
    assert error in result.error


def test_parse_agent_decision_reports_every_problem_at_once():
    result = parse_agent_decision('{"decision": "MAYBE"}')
    assert result.error == (
        "decision 'MAYBE' is not one of ACT, WARN, REFUSE, VETO; confidence missing; risk missing"
    )


def test_parse_agent_decision_fails_safe_on_non_string_input():
    result = parse_agent_decision(None)  # type: ignore[arg-type]
    assert result.parse_failed is True
    assert result.decision == "REFUSE"


@given(st.text())
def test_parse_agent_decision_never_raises_on_any_text(text):
    result = parse_agent_decision(text)
    assert isinstance(result, ParsedDecision)
    assert result.decision in DECISIONS
    assert 0.0 <= result.confidence <= 100.0
    assert 0.0 <= result.risk <= 100.0
    if result.parse_failed:
        assert result.decision == "REFUSE"
        assert result.error
    else:
        assert result.error == ""


@given(st.text(alphabet="{}[]\"'`:,\\ \naAcCtTdeisonrfk0123456789.%/-_*", max_size=80))
def test_parse_agent_decision_never_raises_on_json_like_noise(text):
    result = parse_agent_decision(text)
    assert result.decision in DECISIONS
    assert not math.isnan(result.confidence)


@given(
    decision=st.sampled_from(DECISIONS),
    confidence=st.integers(0, 100),
    risk=st.integers(0, 100),
    reasoning=st.text(max_size=200),
)
def test_parse_agent_decision_round_trips_any_well_formed_reply(
    decision, confidence, risk, reasoning
):
    reply = json.dumps(
        {"decision": decision, "confidence": confidence, "risk": risk, "reasoning": reasoning}
    )
    result = parse_agent_decision(f"Answer:\n```json\n{reply}\n```")
    assert result.parse_failed is False
    assert (result.decision, result.confidence, result.risk) == (
        decision,
        float(confidence),
        float(risk),
    )
    assert result.reasoning == reasoning.strip()


# ---------------------------------------------------------------------------
# parse_challenge
# ---------------------------------------------------------------------------


WP = '"weakest_point": "no plausible harm", "evidence_needed": "a misuse scenario"'


@pytest.mark.parametrize(
    ("text", "agrees", "argument", "suggested"),
    [
        pytest.param(
            '{"agrees_with_conclusion": false, "argument": "You ignore volatility.",'
            f' "suggested_decision": "WARN", {WP}}}',
            False,
            "You ignore volatility.",
            "WARN",
            id="full",
        ),
        pytest.param(
            f'{{"agrees_with_conclusion": true, "argument": "Same answer, weak reason.", {WP}}}',
            True,
            "Same answer, weak reason.",
            None,
            id="agrees",
        ),
        pytest.param(
            f'{{"agrees_with_conclusion": "Yes", "argument": "Sound.", {WP}}}',
            True,
            "Sound.",
            None,
            id="yes-as-text",
        ),
        pytest.param(
            f'{{"agrees": "no", "argument": "No.", {WP}}}',
            False,
            "No.",
            None,
            id="agrees-alias",
        ),
        pytest.param(
            f'{{"stance": "agreement", "text": "Yes.", {WP}}}',
            True,
            "Yes.",
            None,
            id="legacy-stance-agreement-and-text-key",
        ),
        pytest.param(
            f'{{"stance": "**Concur**", "content": "Fine.", {WP}}}',
            True,
            "Fine.",
            None,
            id="legacy-concur-and-content-key",
        ),
        pytest.param(
            f'{{"stance": "Disagree", "challenge": "Where is the evidence?", {WP}}}',
            False,
            "Where is the evidence?",
            None,
            id="legacy-disagree-challenge-key",
        ),
        pytest.param(
            "```json\n{'AGREES_WITH_CONCLUSION': False, 'Argument': ' Too risky. ',"
            " 'suggested_decision': 'refuse.', 'Weakest_Point': 'no plausible harm',"
            " 'evidence': 'a misuse scenario',}\n```",
            False,
            "Too risky.",
            "REFUSE",
            id="fenced-python-dict",
        ),
    ],
)
def test_parse_challenge_reads_json_shapes(text, agrees, argument, suggested):
    result = parse_challenge(text)
    assert result.parse_failed is False, result.error
    assert result.stance == "challenge"  # challenges are compulsory: never an agreement alone
    assert (result.agrees_with_conclusion, result.argument, result.suggested_decision) == (
        agrees,
        argument,
        suggested,
    )
    assert (result.weakest_point, result.evidence_needed) == (
        "no plausible harm",
        "a misuse scenario",
    )


def test_the_stored_text_names_the_weakest_point_and_the_evidence():
    result = parse_challenge(
        f'{{"agrees_with_conclusion": true, "argument": "I agree, but not for your reason.", {WP}}}'
    )
    assert result.text == (
        "I agree, but not for your reason.\n"
        "Weakest point: \u201cno plausible harm\u201d\n"
        "Evidence that would settle it: a misuse scenario"
    )


def test_a_legacy_stance_is_read_with_a_note():
    result = parse_challenge(f'{{"stance": "agree", "argument": "Sound.", {WP}}}')
    assert result.agrees_with_conclusion is True and result.parse_failed is False
    assert "agrees_with_conclusion missing; read as yes from stance 'agree'" in result.notes


def test_parse_challenge_ignores_invalid_suggested_decision_with_a_note():
    result = parse_challenge(
        f'{{"agrees_with_conclusion": false, "argument": "x", "suggested_decision": "GO", {WP}}}'
    )
    assert result.suggested_decision is None
    assert result.parse_failed is False
    assert any("suggested_decision 'GO' ignored" in note for note in result.notes)


def test_plain_prose_is_kept_but_fails_the_rule_it_names_no_weakest_point_or_evidence():
    result = parse_challenge("  Your risk estimate ignores regulatory exposure.  \n")
    assert result == ParsedChallenge(
        stance="challenge",
        argument="Your risk estimate ignores regulatory exposure.",
        suggested_decision=None,
        parse_failed=True,
        error="no JSON object: a challenge must give weakest_point and evidence_needed",
        notes=("no JSON object; whole reply used as the argument",),
    )


def test_parse_challenge_truncates_long_prose():
    result = parse_challenge("x" * (MAX_ARGUMENT_LENGTH + 500))
    assert len(result.argument) == MAX_ARGUMENT_LENGTH == 4000
    assert "argument truncated to 4000 characters" in result.notes


@pytest.mark.parametrize("text", ["", "   ", "\n\t "])
def test_parse_challenge_fails_on_empty_reply(text):
    result = parse_challenge(text)
    assert result.parse_failed is True
    assert result.argument == ""
    assert result.error == "empty reply"


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (f'{{"agrees_with_conclusion": false, {WP}}}', "argument missing"),
        (f'{{"agrees_with_conclusion": false, "argument": "   ", {WP}}}', "argument empty"),
        (f'{{"agrees_with_conclusion": false, "argument": 42, {WP}}}', "argument 42 is not text"),
        (
            f'{{"agrees_with_conclusion": "maybe", "argument": "x", {WP}}}',
            "agrees_with_conclusion 'maybe' is not yes or no",
        ),
        (
            f'{{"stance": "neutral", "argument": "x", {WP}}}',
            "agrees_with_conclusion missing (true or false)",
        ),
        (
            '{"agrees_with_conclusion": true, "argument": "Agreed.", '
            '"evidence_needed": "a source"}',
            "weakest_point missing: a challenge must name the weakest point of the reasoning",
        ),
        (
            '{"agrees_with_conclusion": true, "argument": "Agreed.", "weakest_point": " ", '
            '"evidence_needed": "a source"}',
            "weakest_point empty",
        ),
        (
            '{"agrees_with_conclusion": true, "argument": "Agreed.", '
            '"weakest_point": "it is obvious"}',
            "evidence_needed missing: a challenge must name the evidence that would settle it",
        ),
    ],
)
def test_a_challenge_without_its_required_parts_fails_and_says_which(text, error):
    result = parse_challenge(text)
    assert result.parse_failed is True
    assert result.stance == "challenge"
    assert error in result.error


@given(st.text())
def test_parse_challenge_never_raises_on_any_text(text):
    result = parse_challenge(text)
    assert result.stance == "challenge"
    assert isinstance(result.agrees_with_conclusion, bool)
    assert len(result.argument) <= MAX_ARGUMENT_LENGTH
    assert result.suggested_decision in (*DECISIONS, None)
    assert result.parse_failed == bool(result.error)
