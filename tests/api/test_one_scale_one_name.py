"""One scale and one name wherever a user meets them: confidences are 0-100 % on every
protocol's page, transcript and review page; the question is `question` in the API, the New
debate form, the transcript and the export (the API still takes `query` as a deprecated alias)."""

from __future__ import annotations

import pytest

from debates import running, services
from debates.models import Debate
from reviews.models import ReviewItem

URL = "/api/v1/debates/"
pytestmark = pytest.mark.usefixtures("default_agents")


def _run(query: str, user, protocol: str = "s4") -> Debate:
    debate = services.debate_create(query=query, protocol=protocol, created_by=user, enqueue=False)
    return running.debate_run(debate_id=debate.id)


def test_the_api_takes_question_and_query_as_its_deprecated_alias(api):
    new = api.post(URL, {"question": "Is it raining?"}, format="json")
    old = api.post(URL, {"query": "Is it snowing?"}, format="json")
    assert (new.status_code, old.status_code) == (202, 202)
    assert Debate.objects.get(id=old.json()["id"]).query == "Is it snowing?"
    both = api.post(URL, {"question": "A?", "query": "B?"}, format="json")
    assert both.status_code == 400
    assert "`query` is its deprecated old name" in both.json()["query"][0]
    empty = api.post(URL, {"query": ""}, format="json")
    assert empty.status_code == 400 and "question" in empty.json()


def test_the_export_and_the_transcripts_call_it_the_question(api, user):
    debate = _run("What is the capital of France?", user)
    export = api.get(f"{URL}{debate.id}/").json()
    assert export["question"] == "What is the capital of France?"
    markdown = api.get(f"{URL}{debate.id}/transcript.md").content.decode()
    assert "What is the capital of France?" in markdown


def test_the_new_debate_form_names_its_field_question(client, user):
    client.force_login(user)
    page = client.get("/debates/new/").content.decode()
    assert 'name="question"' in page and 'name="query"' not in page
    empty = client.post("/debates/new/", {"question": "", "protocol": "s4"})
    assert empty.status_code == 400
    assert "The question is empty." in empty.content.decode()


@pytest.mark.parametrize(
    ("protocol", "question"),
    [("s4", "Is Bitcoin a good investment?"), ("moderated", "Should cities ban cars?")],
)
def test_confidences_are_percent_on_every_page_and_transcript(client, user, protocol, question):
    debate = _run(question, user, protocol)
    client.force_login(user)
    page = client.get(f"/debates/{debate.id}/").content.decode()
    markdown = client.get(f"/debates/{debate.id}/debate.md").content.decode()
    statement = debate.statements.order_by("id").first()
    shown = f"{round(statement.confidence, 1):g} %"
    assert f"confidence {shown}" in page
    assert f"confidence {shown}" in markdown
    # never the 0-1 scale the moderated protocol works on
    assert f"confidence {statement.confidence / 100:.2f}" not in page + markdown


def test_the_review_page_shows_confidence_in_percent(admin_client, user):
    debate = _run("Is Bitcoin a good investment?", user)
    item = ReviewItem.objects.get(debate=debate)
    page = admin_client.get(f"/reviews/{item.pk}/").content.decode()
    vote = debate.votes.first()
    assert f"<td>{round(vote.confidence, 1):g} %</td>" in page
    assert f"Average confidence {debate.metadata['avg_confidence']:g} % is below 60 %" in page
