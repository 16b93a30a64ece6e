"""`auto` (docs/concepts/index.md#trigger-keywords): which keyword matched, and whether it is on
the list itself or a widening of it. Pure functions of the question."""

from __future__ import annotations

import pytest

from protocols.selection import (
    DEBATE_TRIGGER_KEYWORDS,
    LISTED_TRIGGER_KEYWORDS,
    WIDENINGS,
    choose_protocol,
    keyword_matches,
)


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("What is your advice on learning Python?", "matched the trigger keyword 'advice'"),
        ("Is an index fund a good investment?", "matched the trigger keyword 'investment'"),
        (
            "An investment decision: stocks or bonds?",
            "matched the trigger keyword 'investment decision'",
        ),
        (
            "I need an assessment of this plan",
            "matched the trigger keyword 'assess' (\"assessment\")",
        ),
        ("Should I buy Bitcoin now?", "matched the trigger keyword 'should i buy'"),
        # This question holds no "investment": the stem "invest" is the widening.
        (
            "Should I invest in Tesla (TSLA) considering all factors?",
            "matched 'invest' (\"invest\"), a widening of the trigger keyword 'investment' to its "
            "stem",
        ),
        (
            "Is investing in gold wise?",
            "matched 'invest' (\"investing\"), a widening of the trigger keyword 'investment' "
            "to its stem",
        ),
    ],
)
def test_the_reason_names_the_listed_keyword_or_the_widening_that_matched(query, reason):
    choice = choose_protocol(query)
    assert (choice.chosen, choice.reason) == ("round_robin", reason)


def test_a_listed_keyword_is_preferred_to_a_widening_as_the_reason():
    choice = choose_protocol("Should I invest? I want your advice.")
    assert choice.reason == "matched the trigger keyword 'advice'"
    assert choice.matched_keywords == ("invest", "advice")
    assert [m["listed_keyword"] for m in choice.as_dict()["matches"]] == [None, "advice"]


def test_every_product_keyword_is_listed_or_a_named_widening():
    for keyword in DEBATE_TRIGGER_KEYWORDS:
        assert keyword in LISTED_TRIGGER_KEYWORDS or keyword in WIDENINGS
    # and every listed keyword still triggers (the widened set keeps the list's).
    for keyword in LISTED_TRIGGER_KEYWORDS:
        assert keyword_matches(f"about {keyword} here"), keyword


def test_a_keyword_inside_a_word_does_not_match_and_the_choice_says_so():
    choice = choose_protocol("Should we reassess the capital of France?")
    assert choice.chosen == "s4" and choice.matches == ()
    assert "no debate trigger keyword" in choice.reason
