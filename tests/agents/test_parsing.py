"""Tests for agents.parsing: finding JSON in a reply, percentages, labels."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.parsing import (
    extract_json_object,
    get_field,
    iter_json_objects,
    parse_decision_label,
    parse_percent,
)

LABELS = ("ACT", "WARN", "REFUSE", "VETO")

# ---------------------------------------------------------------------------
# extract_json_object
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('{"a": 1}', id="plain"),
        pytest.param('  \n{"a": 1}\n ', id="surrounding-whitespace"),
        pytest.param('```json\n{"a": 1}\n```', id="json-fence"),
        pytest.param('```JSON\n{"a": 1}\n```', id="upper-case-fence-tag"),
        pytest.param('```\n{"a": 1}\n```', id="bare-fence"),
        pytest.param('```{"a": 1}```', id="fence-on-one-line"),
        pytest.param('Here you go:\n{"a": 1}\nHope that helps.', id="prose-around"),
        pytest.param('```json\n{"a": 1}', id="unterminated-fence"),
        pytest.param('{"a": 1,}', id="trailing-comma"),
        pytest.param("{'a': 1}", id="single-quotes"),
        pytest.param('{"A ": 1}', id="key-case-and-space"),
        pytest.param('"{\\"a\\": 1}"', id="json-string-containing-object"),
    ],
)
def test_extract_json_object_finds_object_in_common_shapes(text):
    assert extract_json_object(text) == {"a": 1}


def test_extract_json_object_ignores_braces_inside_strings():
    text = 'Note {not json} then {"a": "a } brace", "b": "{x}"} trailing }'
    assert extract_json_object(text) == {"a": "a } brace", "b": "{x}"}


def test_extract_json_object_returns_nested_objects_whole():
    text = 'x {"a": {"b": {"c": [1, {"d": 2}]}}, "e": 3} y'
    assert extract_json_object(text) == {"a": {"b": {"c": [1, {"d": 2}]}}, "e": 3}


def test_extract_json_object_is_not_greedy_across_two_objects():
    assert extract_json_object('{"a": 1} and {"b": 2}') == {"a": 1}
    assert list(iter_json_objects('{"a": 1} and {"b": 2}')) == [{"a": 1}, {"b": 2}]


def test_extract_json_object_prefers_fenced_object_over_earlier_prose_object():
    text = 'Format: {"example": true}\n```json\n{"a": 1}\n```'
    assert extract_json_object(text) == {"a": 1}


def test_extract_json_object_finds_object_inside_unparseable_braces():
    assert extract_json_object('{see: {"a": 1}}') == {"a": 1}


def test_extract_json_object_repairs_python_dict_literals():
    text = "{'ok': True, 'no': False, 'none': None, 'q': 'say \"hi\"', 'it': 'it\\'s',}"
    assert extract_json_object(text) == {
        "ok": True,
        "no": False,
        "none": None,
        "q": 'say "hi"',
        "it": "it's",
    }


def test_extract_json_object_tolerates_apostrophes_in_prose_before_object():
    assert extract_json_object("Here's my answer {it's} {\"a\": 1}") == {"a": 1}


def test_extract_json_object_lower_cases_and_strips_top_level_keys_only():
    assert extract_json_object('{" Decision ": {"Inner": 1}}') == {"decision": {"Inner": 1}}


@pytest.mark.parametrize(
    "text",
    ["", "   ", "no braces here", "{not json at all}", "[1, 2]", '[{"a": 1}]', "{", "}{", "42"],
)
def test_extract_json_object_returns_none_when_nothing_usable(text):
    assert extract_json_object(text) is None


def test_extract_json_object_returns_none_for_non_string():
    assert extract_json_object(None) is None  # type: ignore[arg-type]


def test_extract_json_object_stays_fast_on_many_unbalanced_braces():
    assert extract_json_object("{" * 20000 + '"a"') is None


# ---------------------------------------------------------------------------
# get_field
# ---------------------------------------------------------------------------


def test_get_field_returns_first_present_alias():
    obj = {"rationale": "r", "explanation": "e"}
    assert get_field(obj, "reasoning", "rationale", "explanation") == "r"


def test_get_field_is_case_insensitive_and_skips_null_values():
    assert get_field({"Risk": None, "RISK_LEVEL": 4}, "risk", "risk_level") == 4


def test_get_field_returns_default_when_absent_or_not_a_mapping():
    assert get_field({"a": 1}, "b") is None
    assert get_field({"a": 1}, "b", default=0) == 0
    assert get_field(["a"], "a", default="d") == "d"  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# parse_percent
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (75, 75.0),
        ("75", 75.0),
        ("75%", 75.0),
        (" 75 % ", 75.0),
        ("75 percent", 75.0),
        (75.5, 75.5),
        (0.75, 75.0),
        ("0.75", 75.0),
        (".5", 50.0),
        ("75/100", 75.0),
        ("7.5/10", 75.0),
        ("3/4", 75.0),
        (0, 0.0),
        (1, 1.0),
        ("1", 1.0),
        ("0", 0.0),
        (1.0, 100.0),
        ("1.0", 100.0),
        (0.0, 0.0),
        ("0.5%", 0.5),
        (130, 100.0),
        ("130%", 100.0),
        (-5, 0.0),
        ("-20", 0.0),
        (10**400, 100.0),
        (0.07, 7.0),
    ],
)
def test_parse_percent_reads_numbers_strings_fractions_and_ratios(value, expected):
    assert parse_percent(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        False,
        "",
        "high",
        "75%%",
        "seventy",
        "7/0",
        "1e3",
        [75],
        {"v": 75},
        float("nan"),
        float("inf"),
        "nan",
    ],
)
def test_parse_percent_rejects_bool_none_and_garbage(value):
    assert parse_percent(value) is None


def test_parse_percent_treats_integers_zero_and_one_as_percentages_not_fractions():
    assert parse_percent(1) == 1.0
    assert parse_percent(1.0) == 100.0


@given(st.one_of(st.text(), st.floats(), st.integers(), st.none(), st.booleans()))
def test_parse_percent_never_raises_and_stays_in_range(value):
    result = parse_percent(value)
    assert result is None or 0.0 <= result <= 100.0


# ---------------------------------------------------------------------------
# parse_decision_label
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("ACT", "ACT"),
        ("act", "ACT"),
        ("  Warn \n", "WARN"),
        ("**WARN**", "WARN"),
        ("act.", "ACT"),
        ("Refuse!", "REFUSE"),
        ("VETO:", "VETO"),
        ('"ACT"', "ACT"),
        ("'refuse'", "REFUSE"),
        ("`VETO`", "VETO"),
        ("\u201cWARN\u201d", "WARN"),
        ("_*act*_", "ACT"),
        ("\uff21\uff23\uff34", "ACT"),  # fullwidth ACT
    ],
)
def test_parse_decision_label_cleans_formatting_and_returns_canonical_label(value, expected):
    assert parse_decision_label(value, LABELS) == expected


@pytest.mark.parametrize(
    "value",
    [
        "ACTION",
        "ACT NOW",
        "REFUSAL",
        "proceed",
        "maybe",
        "",
        "**",
        "A C T",
        "WARNING",
        None,
        1,
        ["ACT"],
        "Decision: ACT",
    ],
)
def test_parse_decision_label_rejects_synonyms_substrings_and_non_strings(value):
    assert parse_decision_label(value, LABELS) is None


def test_parse_decision_label_respects_allowed_set():
    assert parse_decision_label("veto", ("ACT", "WARN", "REFUSE")) is None
    assert parse_decision_label("abstain", ["Abstain"]) == "ABSTAIN"


def test_extract_json_object_finds_answer_after_code_with_many_braces():
    code = "```js\n" + "function f() { if (x) { y(); } }\n" * 150 + "```\n"
    assert extract_json_object(code + '{"a": 1}') == {"a": 1}
