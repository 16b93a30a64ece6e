"""The protocol registry over the API: the listing, and options checked when a debate starts."""

from __future__ import annotations

import pytest

from debates.models import Debate
from protocols import PROTOCOLS

URL = "/api/v1/protocols/"
DEBATES = "/api/v1/debates/"
pytestmark = pytest.mark.usefixtures("default_agents")


def _listing(api) -> dict[str, dict]:
    response = api.get(URL)
    assert response.status_code == 200
    return {p["name"]: p for p in response.json()}


def test_every_registered_protocol_is_listed_with_its_options_and_defaults(api):
    protocols = _listing(api)
    assert list(protocols) == list(PROTOCOLS)

    moderated = protocols["moderated"]
    assert moderated["decisions"] == ["SUPPORT", "OPPOSE", "UNCERTAIN"]
    assert moderated["participants"] == {
        "min": 3,
        "max": 3,
        "roles": "one agent for each role: proponent, opponent, moderator",
    }
    assert moderated["selector"] is False and moderated["chooses_from"] is None
    options = {o["name"]: o for o in moderated["options"]}
    assert options["max_rounds"] == {
        "name": "max_rounds",
        "type": "int",
        "default": 2,
        "minimum": 1,
        "maximum": 5,
        "max_length": None,
        "choices": None,
        "description": "Most rounds to run (each: arguments, then the moderator).",
    }
    assert (
        options["consensus_threshold"]["default"],
        options["consensus_threshold"]["minimum"],
        options["consensus_threshold"]["maximum"],
    ) == (0.8, 0.5, 1.0)
    assert (
        options["model"]["type"],
        options["model"]["default"],
        options["model"]["max_length"],
        options["model"]["minimum"],
    ) == ("str", "", 200, None)

    stances = {o["name"]: o for o in protocols["round_robin"]["options"]}["stances"]
    assert (stances["default"], stances["choices"]) == ("auto", ["auto", "investment", "decision"])
    s4 = protocols["s4"]["participants"]
    assert (s4["min"], s4["max"]) == (2, 6) and "'safety' that can veto" in s4["roles"]
    assert [o["name"] for o in protocols["s4"]["options"]] == ["model"]


def test_auto_is_listed_as_a_selector_between_two_protocols(api):
    auto = _listing(api)["auto"]
    assert auto["selector"] is True
    assert auto["chooses_from"] == ["round_robin", "s4"]
    assert auto["options"] == []
    assert "round_robin" in auto["description"]


def test_the_listing_needs_credentials(anon_api):
    assert anon_api.get(URL).status_code == 401


def test_options_are_passed_through_and_stored_with_the_defaults(api):
    response = api.post(
        DEBATES,
        {
            "question": "Should every website use HTTPS?",
            "protocol": "moderated",
            "options": {"max_rounds": 1},
        },
        format="json",
    )
    assert response.status_code == 202, response.json()
    debate = Debate.objects.get(id=response.json()["id"])
    assert debate.protocol == "moderated"
    assert debate.options == {"max_rounds": 1, "consensus_threshold": 0.8, "model": ""}


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        (
            {"protocol": "moderated", "options": {"max_rounds": 9}},
            {"max_rounds": ["max_rounds must be between 1 and 5, got 9."]},
        ),
        (
            {"protocol": "moderated", "options": {"max_rounds": "two", "consensus_threshold": 2}},
            {
                "max_rounds": ["max_rounds must be a whole number, got 'two'."],
                "consensus_threshold": ["consensus_threshold must be between 0.5 and 1, got 2."],
            },
        ),
        (
            {"protocol": "moderated", "options": {"rounds": 1}},
            {
                "non_field_errors": [
                    "Unknown option(s) for moderated: rounds. Allowed: "
                    "consensus_threshold, max_rounds, model."
                ]
            },
        ),
        (
            {"protocol": "round_robin", "options": {"stances": "vibes"}},
            {"stances": ["stances must be one of auto, investment, decision, got 'vibes'."]},
        ),
        (
            {"protocol": "round_robin", "options": {"max_rounds": 2, "min_turns_per_agent": 3}},
            {
                "min_turns_per_agent": [
                    "min_turns_per_agent (3) cannot exceed max_rounds (2): each "
                    "round is one turn per agent."
                ]
            },
        ),
    ],
    ids=["out-of-range", "two-bad", "unknown", "not-a-choice", "across-options"],
)
def test_each_bad_option_is_named_with_what_to_fix_and_nothing_is_stored(api, body, errors):
    response = api.post(
        DEBATES, {"question": "Should every website use HTTPS?", **body}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {"options": errors}
    assert Debate.objects.count() == 0


def test_auto_checks_options_against_the_protocol_it_picks(api):
    refused = api.post(
        DEBATES,
        {
            "question": "What is the capital of France?",
            "protocol": "auto",
            "options": {"max_rounds": 3},
        },
        format="json",
    )
    assert refused.status_code == 400
    message = refused.json()["options"]["non_field_errors"][0]
    assert message.startswith("auto chose s4 (")
    assert "Unknown option(s) for s4: max_rounds" in message

    accepted = api.post(
        DEBATES,
        {
            "question": "Should I invest in Tesla (TSLA)?",
            "protocol": "auto",
            "options": {"max_rounds": 3},
        },
        format="json",
    )
    assert accepted.status_code == 202, accepted.json()
    debate = Debate.objects.get(id=accepted.json()["id"])
    assert (debate.protocol, debate.options["max_rounds"]) == ("round_robin", 3)
    assert debate.metadata["protocol_choice"]["chosen"] == "round_robin"
