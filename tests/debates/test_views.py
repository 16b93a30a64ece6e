"""The debate pages as a signed-in user gets them: list, start form, live page and partial,
downloads. The browser behaviour is in test_live_browser.py."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from debates import running, selectors, services
from debates.models import Debate, Participant
from tests.debates.test_live import (
    SCRIPT_REPLY,
    finished_debate,
    interrupted_in_round_two,
)
from tests.debates.test_services import CountingLLM
from tests.factories import with_roles


@pytest.fixture
def owner(django_user_model):
    return django_user_model.objects.create_user("olga", password="a-long-passphrase")


@pytest.fixture
def owner_client(client, owner):
    client.force_login(owner)
    return client


def text_of(response) -> str:
    """The page's text without tags, whitespace collapsed: roughly what a reader sees."""
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", response.content.decode(), flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def urls_of(debate) -> list[str]:
    return [
        reverse("debates:detail", args=[debate.id]),
        reverse("debates:live", args=[debate.id]),
        reverse("debates:export_json", args=[debate.id]),
        reverse("debates:export_markdown", args=[debate.id]),
    ]


def test_the_home_page_leads_to_the_debate_list(owner_client):
    response = owner_client.get("/")
    assert response.status_code == 302
    assert response["Location"] == reverse("debates:list")


def test_anonymous_visitors_are_sent_to_log_in(client, default_agents):
    debate = services.debate_create(query="Is it raining?", enqueue=False)
    for url in [reverse("debates:list"), reverse("debates:start"), *urls_of(debate)]:
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(f"{reverse('login')}?next="), url
    response = client.post(reverse("debates:start"), {"question": "Is it?", "protocol": "s4"})
    assert response.status_code == 302
    assert Debate.objects.count() == 1


def test_the_list_shows_a_users_own_debates_and_staff_see_everyones(
    client, owner, django_user_model, default_agents
):
    other = django_user_model.objects.create_user("otto", password="a-long-passphrase")
    staff = with_roles(django_user_model.objects.create_user("sam", password="x", is_staff=True))
    services.debate_create(query="Is my question fine?", created_by=owner, enqueue=False)
    services.debate_create(query="Is their question fine?", created_by=other, enqueue=False)

    client.force_login(owner)
    text = text_of(client.get(reverse("debates:list")))
    assert "Is my question fine?" in text
    assert "Is their question fine?" not in text

    client.force_login(staff)
    text = text_of(client.get(reverse("debates:list")))
    assert "Is my question fine?" in text and "Is their question fine?" in text
    assert "otto" in text and "olga" in text


def test_another_users_debate_is_not_found(client, owner, django_user_model, default_agents):
    debate = finished_debate("Is Bitcoin a good investment?", owner)
    intruder = django_user_model.objects.create_user("ivan", password="a-long-passphrase")
    client.force_login(intruder)
    for url in urls_of(debate):
        assert client.get(url).status_code == 404, url


def test_starting_a_debate_stores_it_for_the_user_and_opens_its_page(
    owner_client, owner, default_agents
):
    response = owner_client.post(
        reverse("debates:start"), {"question": "Is Bitcoin a good investment?", "protocol": "s4"}
    )
    debate = Debate.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/debates/{debate.id}/"
    assert (debate.query, debate.protocol, debate.created_by) == (
        "Is Bitcoin a good investment?",
        "s4",
        owner,
    )
    page = owner_client.get(response["Location"])
    assert "Waiting for a worker to start the debate" in text_of(page)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"question": "", "protocol": "s4"}, "The question is empty."),
        ({"question": "x" * 2001, "protocol": "s4"}, "limit is 2000"),
        ({"question": "Is it?", "protocol": "chess"}, "Select a valid choice."),
    ],
    ids=["empty", "too-long", "unknown-protocol"],
)
def test_bad_input_on_the_form_is_explained_and_nothing_is_stored(
    owner_client, default_agents, data, message
):
    response = owner_client.post(reverse("debates:start"), data)
    assert response.status_code == 400
    assert message in text_of(response)
    assert Debate.objects.count() == 0
    assert Participant.objects.count() == 0


def test_without_agents_for_the_protocol_the_form_says_how_to_fix_it(owner_client, db):
    response = owner_client.post(reverse("debates:start"), {"question": "Is it?", "protocol": "s4"})
    assert response.status_code == 400
    assert "load_default_agents" in text_of(response)
    assert Debate.objects.count() == 0


def test_a_finished_debate_page_shows_the_whole_debate_and_the_decision(
    owner_client, owner, default_agents
):
    debate = finished_debate("How do I hack into my ex's email?", owner)
    text = text_of(owner_client.get(reverse("debates:detail", args=[debate.id])))

    for heading in (
        "Round 1: Initial Analysis",
        "Round 2: Challenge Round",
        "Round 3: Revision Round",
        "Round 4: Final Voting",
    ):
        assert heading in text
    assert text.count("Challenge → to") == 6
    assert "Changed position ACT → became REFUSE" in text
    assert "Decision: REFUSE" in text
    assert "Votes 0 ACT, 1 WARN, 1 REFUSE, 1 VETO" in text
    assert "Veto yes, by Safety Agent" in text
    assert "Max risk 90" in text
    assert "LLM calls 12 of 12 done" in text
    assert "Download JSON" in text and "Download Markdown" in text
    assert "Thinking" not in text


def test_every_challenge_is_a_challenge_and_agreement_with_the_conclusion_shows_in_green(
    owner_client, owner, default_agents
):
    # Compulsory challenges (docs/concepts/s4.md#compulsory-challenges): on a question everyone
    # answers ACT, all six still challenge, naming a weak
    # point and the evidence that would settle it; agreeing with the conclusion is shown apart.
    debate = finished_debate("What is the capital of France?", owner)
    html = owner_client.get(reverse("debates:detail", args=[debate.id])).content.decode()
    label = (
        r'class="msg stance-{}">\s*<p class="msg-label"><strong class="stance-label">'
        r'Challenge</strong>.*?<span class="agreement">· {} the conclusion</span>'
    )
    agrees = re.findall(label.format("agree", "agrees with"), html, re.S)
    disputes = re.findall(label.format("challenge", "disputes"), html, re.S)
    assert (len(agrees), len(disputes)) == (6, 0)
    text = text_of(owner_client.get(reverse("debates:detail", args=[debate.id])))
    assert text.count("Weakest point: “") == 6
    assert text.count("Evidence that would settle it: ") == 6


def test_a_challenge_that_disputes_the_conclusion_is_shown_in_red(
    owner_client, owner, default_agents
):
    debate = finished_debate("Is Bitcoin a good investment?", owner)
    html = owner_client.get(reverse("debates:detail", args=[debate.id])).content.decode()
    assert html.count('class="msg stance-challenge"') == 6
    assert html.count("· disputes the conclusion") == 6


def test_a_page_opened_mid_debate_shows_what_is_stored_and_who_is_thinking(
    owner_client, owner, default_agents
):
    debate = interrupted_in_round_two("Is Bitcoin a good investment?", owner)
    response = owner_client.get(reverse("debates:detail", args=[debate.id]))
    text = text_of(response)

    assert "Round 1: Initial Analysis" in text
    assert "Round 2: Challenge Round in progress" in text
    assert "Round 3" not in text
    assert text.count("Thinking… (2 replies)") == 3
    assert "Too many unknowns for a confident prediction" in text
    assert 'data-finished="false"' in response.content.decode()


def test_the_partial_answers_no_content_until_something_changes(
    owner_client, owner, default_agents
):
    debate = services.debate_create(
        query="Is Bitcoin a good investment?", created_by=owner, enqueue=False
    )
    url = reverse("debates:live", args=[debate.id])
    first = owner_client.get(url)
    version = re.search(r'data-version="(\w+)"', first.content.decode()).group(1)
    assert first.status_code == 200
    assert owner_client.get(url, {"since": version}).status_code == 204

    running.debate_run(debate_id=debate.id)
    changed = owner_client.get(url, {"since": version})
    assert changed.status_code == 200
    assert "Decision: WARN" in text_of(changed)
    assert 'data-finished="true"' in changed.content.decode()


def test_an_unchanged_poll_reads_one_row_of_debate_data(
    owner_client, owner, default_agents, django_assert_num_queries
):
    """Session, user, the owner's permissions (2), then the version query, and nothing else;
    someone else's debate is a 404 from the same query."""
    debate = interrupted_in_round_two("Is Bitcoin a good investment?", owner)
    url = reverse("debates:live", args=[debate.id])
    version = re.search(r'data-version="(\w+)"', owner_client.get(url).content.decode()).group(1)

    with django_assert_num_queries(5):
        assert owner_client.get(url, {"since": version}).status_code == 204
    other = services.debate_create(query="Someone else's?", enqueue=False)
    assert (
        owner_client.get(reverse("debates:live", args=[other.id]), {"since": version}).status_code
        == 404
    )


def test_model_text_is_escaped_in_the_partial(owner_client, owner, default_agents):
    llm = CountingLLM(replies={"Your name in this debate: Utility Agent": SCRIPT_REPLY})
    debate = finished_debate("Is <i>tea</i> better than coffee?", owner, llm)
    html = owner_client.get(reverse("debates:live", args=[debate.id])).content.decode()
    page = owner_client.get(reverse("debates:detail", args=[debate.id])).content.decode()

    assert "&lt;script&gt;window.__xss = 1&lt;/script&gt; Fine &amp; [safe]" in html
    assert "<script>window.__xss" not in html and "<script>window.__xss" not in page
    assert "Is &lt;i&gt;tea&lt;/i&gt; better than coffee?" in page


def test_a_failed_debate_shows_its_error(owner_client, owner, default_agents):
    debate = services.debate_create(query="Is it raining?", created_by=owner, enqueue=False)
    running.debate_fail(debate_id=debate.id, error="The language model failed (permanent).")
    text = text_of(owner_client.get(reverse("debates:detail", args=[debate.id])))
    assert "The debate failed The language model failed (permanent)." in text
    assert "Download JSON" in text


def test_an_overridden_decision_shows_the_reviewers_and_the_machines(
    owner_client, owner, default_agents
):
    debate = finished_debate("Is Bitcoin a good investment?", owner)
    Debate.objects.filter(id=debate.id).update(decision_override="REFUSE", review_status="resolved")
    text = text_of(owner_client.get(reverse("debates:detail", args=[debate.id])))
    assert "Decision: REFUSE Overridden by a reviewer. The rules decided WARN ." in text
    assert "Review Resolved" in text
    listing = text_of(owner_client.get(reverse("debates:list")))
    assert "REFUSE (overridden; rules: WARN)" in listing


def test_json_download_has_the_documented_export_shape(owner_client, owner, default_agents):
    debate = finished_debate("How do I hack into my ex's email?", owner)
    response = owner_client.get(reverse("debates:export_json", args=[debate.id]))
    data = json.loads(response.content)

    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == f'attachment; filename="debate-{debate.id}.json"'
    assert [(r["number"], r["name"]) for r in data["rounds"]] == [
        (1, "Initial Analysis"),
        (2, "Challenge Round"),
        (3, "Revision Round"),
        (4, "Final Voting"),
    ]
    assert len(data["rounds"][0]["data"]) == 3
    assert len(data["rounds"][1]["data"]) == 6
    assert {"before", "after", "changed_position"} <= set(data["rounds"][2]["data"][0])
    assert [v["decision"] for v in data["rounds"][3]["votes"]] == ["REFUSE", "WARN", "VETO"]
    assert data["final_decision"]["decision"] == "REFUSE"
    assert data["final_decision"]["metadata"]["veto_applied"] is True
    assert data == json.loads(json.dumps(selectors.debate_export(selectors.debate_get(debate.id))))


def test_markdown_download_is_the_transcript(owner_client, owner, default_agents):
    debate = finished_debate("How do I hack into my ex's email?", owner)
    response = owner_client.get(reverse("debates:export_markdown", args=[debate.id]))
    text = response.content.decode()

    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="debate-{debate.id}.md"'
    assert text.startswith("# Debate: How do I hack into my ex's email?")
    assert "## Decision: REFUSE" in text


def test_the_header_links_to_the_debates_and_the_form(owner_client):
    html = owner_client.get(reverse("debates:list")).content.decode()
    assert f'href="{reverse("debates:list")}">Debates</a>' in html
    assert f'href="{reverse("debates:start")}">New debate</a>' in html
