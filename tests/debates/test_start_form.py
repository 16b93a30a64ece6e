"""The start form offers every protocol in the registry with its options and defaults, and
explains a bad option next to it."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from debates.models import Debate
from protocols import PROTOCOLS
from tests.debates.test_views import text_of

URL = reverse("debates:start")
QUESTION = "Should every website use HTTPS?"
pytestmark = pytest.mark.usefixtures("default_agents")


@pytest.fixture
def member_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("nora", password="a-long-pass"))
    return client


def test_the_form_lists_every_protocol_with_its_options_and_defaults(member_client):
    response = member_client.get(URL)
    html = response.content.decode()
    text = text_of(response)

    options = re.findall(
        r'<option value="([a-z_0-9]+)"[^>]*>([^<]+)</option>',
        html.split('name="protocol"')[1].split("</select>")[0],
    )
    assert options == [(name, cls.label) for name, cls in PROTOCOLS.items()]
    assert re.findall(r'<fieldset class="protocol-options" data-protocol="(\w+)"', html) == list(
        PROTOCOLS
    )
    assert (
        "Most rounds to run (each: arguments, then the moderator). A whole number from 1 "
        "to 5. Default: 2."
    ) in text
    assert 'name="moderated-max_rounds" value="2"' in html
    assert 'name="moderated-consensus_threshold" value="0.8"' in html
    assert (
        "BUY/HOLD/SELL (investment) or ACT/WARN/REFUSE (decision); auto picks investment "
        "for investment questions. One of auto, investment, decision. Default: auto."
    ) in text
    assert '<option value="auto" selected>auto (default)</option>' in html
    assert "No options of its own" in text  # auto


def test_options_given_on_the_form_are_stored_with_the_rest_defaulted(member_client):
    response = member_client.post(
        URL,
        {
            "question": QUESTION,
            "protocol": "moderated",
            "moderated-max_rounds": " 1 ",
            "moderated-consensus_threshold": "",
            "moderated-model": "",
            "round_robin-max_rounds": "99",  # another protocol's box: not read
        },
    )
    assert response.status_code == 302
    debate = Debate.objects.get()
    assert debate.protocol == "moderated"
    assert debate.options == {"max_rounds": 1, "consensus_threshold": 0.8, "model": ""}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"protocol": "moderated", "moderated-max_rounds": "9"},
            "max_rounds must be between 1 and 5, got 9.",
        ),
        (
            {"protocol": "moderated", "moderated-consensus_threshold": "high"},
            "consensus_threshold must be a number, got 'high'.",
        ),
        (
            {"protocol": "round_robin", "round_robin-stances": "vibes"},
            "stances must be one of auto, investment, decision, got 'vibes'.",
        ),
        (
            {
                "protocol": "round_robin",
                "round_robin-max_rounds": "2",
                "round_robin-min_turns_per_agent": "3",
            },
            "min_turns_per_agent (3) cannot exceed max_rounds (2)",
        ),
    ],
    ids=["out-of-range", "not-a-number", "not-a-choice", "across-options"],
)
def test_a_bad_option_is_explained_next_to_its_box_and_nothing_is_stored(
    member_client, data, message
):
    response = member_client.post(URL, {"question": QUESTION, **data})
    assert response.status_code == 400
    html = response.content.decode()
    assert message in unescape(text_of(response))
    box = next(k for k in data if k != "protocol" and k.endswith(message.split()[0]))
    assert f'id="id_{box}_error"' in html  # the message sits with its box
    assert re.search(rf'name="{box}"[^>]*aria-invalid="true"', html)
    assert Debate.objects.count() == 0
