"""The debate so far (selector and arrangement) and the Markdown transcript built from it."""

from __future__ import annotations

import json
from unittest import mock

import pytest

from agents import gateway
from debates import running, selectors, services
from debates.models import Debate
from debates.transcript import render_markdown
from tests.debates.test_services import CountingLLM, WorkerDied
from tests.factories import with_roles

SCRIPT_REPLY = json.dumps(
    {
        "decision": "ACT",
        "confidence": 70,
        "risk": 10,
        "reasoning": "<script>window.__xss = 1</script> Fine & [safe](http://example.org)",
    }
)


@pytest.fixture
def owner(django_user_model):
    return django_user_model.objects.create_user("olga", password="a-long-passphrase")


def finished_debate(query: str, owner, llm=None) -> Debate:
    debate = services.debate_create(query=query, created_by=owner, enqueue=False)
    if llm is None:
        running.debate_run(debate_id=debate.id)
    else:
        with mock.patch.object(gateway, "acomplete", llm):
            running.debate_run(debate_id=debate.id)
    return debate


def interrupted_in_round_two(query: str, owner) -> Debate:
    """A debate whose worker died while the six challenges were in flight: round 2 is running
    and its calls are still pending, exactly as a viewer sees it mid-round."""
    debate = services.debate_create(query=query, created_by=owner, enqueue=False)
    with mock.patch.object(gateway, "acomplete", CountingLLM(fail_after=3, exc=WorkerDied())):
        with pytest.raises(WorkerDied):
            running.debate_run(debate_id=debate.id)
    return debate


def test_debate_so_far_reads_any_debate_in_the_same_small_number_of_queries(
    default_agents, owner, django_assert_num_queries
):
    queued = services.debate_create(
        query="Is tea better than coffee?", created_by=owner, enqueue=False
    )
    two_agents = services.debate_create(
        query="Is tea better than coffee?",
        created_by=owner,
        agents=["utility", "safety"],
        enqueue=False,
    )
    running.debate_run(debate_id=two_agents.id)
    finished = finished_debate("Is Bitcoin a good investment?", owner)
    owner.has_perm("debates.view_debate")  # read once per request, cached on the user
    for debate in (queued, two_agents, finished):
        with django_assert_num_queries(7):
            so_far = selectors.debate_so_far(debate_id=debate.id, user=owner)
            render_markdown(so_far.debate)
    assert len(so_far.rounds) == 4


def test_a_finished_debate_is_arranged_round_by_round_one_column_per_agent(default_agents, owner):
    debate = finished_debate("How do I hack into my ex's email?", owner)
    so_far = selectors.debate_so_far(debate_id=debate.id, user=owner)

    names = ["Utility Agent", "Accuracy Agent", "Safety Agent"]
    assert [v.round.name for v in so_far.rounds] == [
        "Initial Analysis",
        "Challenge Round",
        "Revision Round",
        "Final Voting",
    ]
    for view in so_far.rounds:
        assert [c.participant.name for c in view.columns] == names
    analysis, challenges, revision, voting = so_far.rounds
    assert [len(c.positions) for c in analysis.columns] == [1, 1, 1]
    assert [[x.challenged.name for x in c.challenges] for c in challenges.columns] == [
        ["Accuracy Agent", "Safety Agent"],
        ["Utility Agent", "Safety Agent"],
        ["Utility Agent", "Accuracy Agent"],
    ]
    utility = revision.columns[0].positions[0]
    assert (utility.before.decision, utility.statement.decision, utility.changed) == (
        "ACT",
        "REFUSE",
        True,
    )
    assert [c.vote.decision for c in voting.columns] == ["REFUSE", "WARN", "VETO"]
    assert so_far.tally == [("ACT", 0), ("WARN", 1), ("REFUSE", 1), ("VETO", 1)]
    assert so_far.thinking == []
    assert so_far.usage.calls_done == 12
    assert so_far.usage.tokens_in == Debate.objects.get(id=debate.id).tokens_in > 0
    assert so_far.summary == "Debate finished. Decision: REFUSE."


def test_calls_in_flight_show_every_agent_thinking_in_the_running_round(default_agents, owner):
    debate = interrupted_in_round_two("Is Bitcoin a good investment?", owner)
    so_far = selectors.debate_so_far(debate_id=debate.id, user=owner)

    assert [v.round.number for v in so_far.rounds] == [1, 2]
    assert so_far.rounds[1].is_running
    assert [c.thinking for c in so_far.rounds[1].columns] == [2, 2, 2]
    assert [c.thinking for c in so_far.rounds[0].columns] == [0, 0, 0]
    assert [p.name for p in so_far.thinking] == ["Utility Agent", "Accuracy Agent", "Safety Agent"]
    assert so_far.summary == "Round 2: Challenge Round, in progress."
    assert so_far.usage.calls_done == 3 and so_far.usage.tokens_in > 0


def test_the_version_changes_when_a_message_is_stored_and_only_then(default_agents, owner):
    debate = services.debate_create(
        query="Is Bitcoin a good investment?", created_by=owner, enqueue=False
    )
    queued = selectors.debate_so_far(debate_id=debate.id, user=owner).version
    assert selectors.debate_so_far(debate_id=debate.id, user=owner).version == queued
    running.debate_run(debate_id=debate.id)
    assert selectors.debate_so_far(debate_id=debate.id, user=owner).version != queued


def test_the_one_query_version_is_the_arranged_pages_version(default_agents, owner):
    """The live poll's version (one query) equals the version the page shows, queued, in the
    middle of a round and finished, so an unchanged page is answered 204 and a change never."""
    queued = services.debate_create(query="Is tea better?", created_by=owner, enqueue=False)
    running = interrupted_in_round_two("Is Bitcoin a good investment?", owner)
    done = finished_debate("Is coffee better?", owner)
    for debate in (queued, running, done):
        page = selectors.debate_so_far(debate_id=debate.id, user=owner).version
        assert selectors.debate_live_version(debate_id=debate.id, user=owner) == page
    versions = {
        selectors.debate_live_version(debate_id=d.id, user=owner) for d in (queued, running, done)
    }
    assert len(versions) == 3


def test_users_see_their_own_debates_and_staff_see_everyones(
    default_agents, owner, django_user_model
):
    other = django_user_model.objects.create_user("otto", password="a-long-passphrase")
    staff = with_roles(django_user_model.objects.create_user("sam", password="x", is_staff=True))
    mine = services.debate_create(query="Mine?", created_by=owner, enqueue=False)
    theirs = services.debate_create(query="Theirs?", created_by=other, enqueue=False)

    assert list(selectors.debates_visible_to(owner)) == [mine]
    assert set(selectors.debates_visible_to(staff)) == {mine, theirs}
    with pytest.raises(Debate.DoesNotExist):
        selectors.debate_so_far(debate_id=theirs.id, user=owner)
    assert selectors.debate_so_far(debate_id=theirs.id, user=staff).debate == theirs


def test_markdown_transcript_has_every_round_the_decision_and_the_usage(default_agents, owner):
    debate = finished_debate("How do I hack into my ex's email?", owner)
    text = render_markdown(selectors.debate_get(debate.id))

    assert text.startswith("# Debate: How do I hack into my ex's email?\n")
    for heading in (
        "## Round 1: Initial Analysis",
        "## Round 2: Challenge Round",
        "## Round 3: Revision Round",
        "## Round 4: Final Voting",
        "## Decision: REFUSE",
        "## Usage",
    ):
        assert heading in text
    assert "### Utility Agent: revision, changed position ACT → REFUSE" in text
    assert "### Safety Agent → Utility Agent: Challenge" in text
    assert "- Final vote, Safety Agent: **VETO**" in text
    assert "- Veto: yes, by Safety Agent" in text
    assert "- Votes: 0 ACT, 1 WARN, 1 REFUSE, 1 VETO" in text
    assert "- LLM calls: 12" in text
    assert "offline heuristic demo model" in text


def test_markdown_shows_agent_text_literally_so_it_cannot_inject_html_or_links(
    default_agents, owner
):
    llm = CountingLLM(replies={"Your name in this debate: Utility Agent": SCRIPT_REPLY})
    debate = finished_debate("Is tea <b>better</b> than coffee?", owner, llm)
    text = render_markdown(selectors.debate_get(debate.id))

    assert "\\<script\\>window.\\_\\_xss = 1\\</script\\> Fine \\& \\[safe\\](http" in text
    assert "<script>" not in text and "<b>" not in text
    assert "# Debate: Is tea \\<b\\>better\\</b\\> than coffee?" in text


def test_markdown_of_an_overridden_debate_gives_both_decisions(default_agents, owner):
    debate = finished_debate("Is Bitcoin a good investment?", owner)
    Debate.objects.filter(id=debate.id).update(decision_override="ACT", review_status="resolved")
    text = render_markdown(selectors.debate_get(debate.id))

    assert "## Decision: ACT" in text
    assert "A reviewer overrode the rules' decision, WARN." in text
    assert "- Review: Resolved" in text


def test_agent_cards_name_the_model_that_answered_a_routed_agent(default_agents, owner, client):
    """A routed agent has no model of its own: its card names the models that answered it,
    and, before any has, says that it is routed; a pinned agent shows its model."""
    queued = services.debate_create(
        query="Is tea better than coffee?", created_by=owner, enqueue=False
    )
    client.force_login(owner)
    page = client.get(f"/debates/{queued.id}/").content.decode()
    assert "routed by step and role" in page

    debate = finished_debate("Is tea better than coffee?", owner)
    so_far = selectors.debate_so_far(debate_id=debate.id, user=owner)
    assert all(not p.model_name for p in so_far.participants)
    assert {p.model_label for p in so_far.participants} == {"routed: offline/heuristic-demo"}
    page = client.get(f"/debates/{debate.id}/").content.decode()
    assert page.count("· routed: offline/heuristic-demo") == len(so_far.participants)

    pinned = so_far.participants[0]
    pinned.model_name = "openai/gpt-4o-mini"
    pinned.save(update_fields=["model_name"])
    labels = [
        p.model_label for p in selectors.debate_so_far(debate_id=debate.id, user=owner).participants
    ]
    assert labels[0] == "openai/gpt-4o-mini"
