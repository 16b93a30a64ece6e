"""The debate list's search and filters: kept in the URL (and in the pagination links), shown
in the form, bad values answered with a 400 saying what to fix; protocols by their names."""

from __future__ import annotations

import pytest
from django.urls import reverse

from debates import running, services
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
LIST = reverse("debates:list")


@pytest.fixture
def owner_client(client, default_agents):
    owner = UserFactory()
    client.force_login(owner)
    for query, protocol in (
        ("How do I hack into my ex's email?", "s4"),
        ("What is the capital of France?", "s4"),
        ("Should cities ban cars downtown?", "moderated"),
    ):
        debate = services.debate_create(
            query=query, protocol=protocol, created_by=owner, enqueue=False
        )
        running.debate_run(debate_id=debate.id)
    return client


def questions(response) -> list[str]:
    text = response.content.decode()
    return [q for q in ("hack into", "capital of France", "ban cars") if q in text]


def test_search_and_filters_narrow_the_list_and_stay_in_the_form(owner_client):
    assert questions(owner_client.get(LIST)) == ["hack into", "capital of France", "ban cars"]
    found = owner_client.get(LIST, {"q": "FRANCE"})
    assert questions(found) == ["capital of France"]
    assert 'value="FRANCE"' in found.content.decode()
    refused = owner_client.get(LIST, {"decision": "REFUSE", "protocol": "s4"})
    assert questions(refused) == ["hack into"]
    page = refused.content.decode()
    assert '<option value="REFUSE" selected>' in page and '<option value="s4" selected>' in page
    assert questions(owner_client.get(LIST, {"protocol": "moderated"})) == ["ban cars"]
    assert questions(owner_client.get(LIST, {"review_status": "none", "q": "capital"})) == [
        "capital of France"
    ]
    assert questions(owner_client.get(LIST, {"review_status": "pending", "q": "hack"})) == [
        "hack into"
    ]  # a veto goes to review
    empty = owner_client.get(LIST, {"q": "nothing like this"})
    assert "No debate matches these filters" in empty.content.decode()


def test_a_bad_filter_is_a_400_saying_what_to_fix(owner_client):
    bad = owner_client.get(LIST, {"decision": "MAYBE", "created_after": "yesterday"})
    assert bad.status_code == 400
    page = bad.content.decode()
    assert "Select a valid choice. MAYBE is not one of the available choices." in page
    assert "Enter a valid date." in page
    backwards = owner_client.get(
        LIST, {"created_after": "2026-01-02", "created_before": "2026-01-01"}
    )
    assert "Pick a date on or after the" in backwards.content.decode()


def test_protocols_show_their_human_names(owner_client):
    page = owner_client.get(LIST).content.decode()
    assert 'title="s4">S4</td>' in page and 'title="moderated">Moderated</td>' in page
