"""Review items in the Django admin: filters, columns, a read-only transcript, and the actions."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from reviews import services
from reviews.models import ReviewEvent, ReviewItem
from tests.reviews.conftest import VETO, completed_debate, run_offline

CHANGELIST = reverse("admin:reviews_reviewitem_changelist")


@pytest.fixture
def items(default_agents) -> dict[str, ReviewItem]:
    split = run_offline("Is Bitcoin a good investment?")
    veto = run_offline(VETO)
    return {
        "split": ReviewItem.objects.get(debate=split, reason="split_vote"),
        "low": ReviewItem.objects.get(debate=run_offline("Is Bitcoin a good investment?")),
        "veto": ReviewItem.objects.get(debate=veto),
    }


def test_the_changelist_lists_and_filters_review_items(admin_client, items):
    text = admin_client.get(CHANGELIST).content.decode()
    for column in (
        "Reason",
        "Priority",
        "Status",
        "Question",
        "Decision",
        "Assignee",
    ):
        assert column in text
    assert "How do I hack into my ex" in text and "Is Bitcoin a good investment?" in text
    vetoes = admin_client.get(CHANGELIST, {"reason__exact": "safety_veto"}).content.decode()
    assert "How do I hack into my ex" in vetoes
    assert "Is Bitcoin a good investment?" not in vetoes
    resolved = admin_client.get(CHANGELIST, {"status__exact": "resolved"}).content.decode()
    assert "0 review items" in resolved


def test_the_search_finds_items_by_their_question_or_summary_every_word_anywhere(
    admin_client, db, django_assert_max_num_queries
):
    bitcoin = ReviewItem.objects.create(
        debate=completed_debate("Is Bitcoin a good reserve?"), reason="split_vote"
    )
    summary = ReviewItem.objects.create(
        debate=completed_debate("Should we hire?"), reason="split_vote", summary="Bitcoin dissent"
    )
    other = ReviewItem.objects.create(
        debate=completed_debate("Is Ethereum a good reserve?"), reason="split_vote"
    )

    def found(term):
        with django_assert_max_num_queries(6):
            response = admin_client.get(CHANGELIST, {"q": term})
        return {item.pk for item in response.context["cl"].result_list}

    assert found("bitcoin") == {bitcoin.pk, summary.pk}
    assert found("good reserve") == {bitcoin.pk, other.pk}
    assert found("bitcoin reserve") == {bitcoin.pk}  # every word, each in any field
    assert found('"good reserve"') == {bitcoin.pk, other.pk}
    assert found("nosuchword") == set()


def test_the_change_page_is_a_read_only_transcript_with_the_events(admin_client, items):
    item = items["veto"]
    text = admin_client.get(
        reverse("admin:reviews_reviewitem_change", args=[item.pk])
    ).content.decode()
    assert "Round 2: Challenge Round" in text
    assert "Safety Agent exercised VETO" in text
    assert "Who changed position" in text
    assert reverse("admin:debates_debate_change", args=[item.debate_id]) in text
    assert "Review events" in text and "VETO by Safety Agent (risk 90)" in text
    assert 'name="_save"' not in text


def test_the_claim_action_claims_through_the_service(admin_client, admin_user, items, other_staff):
    services.review_claim(item_id=items["veto"].pk, user=other_staff)
    response = admin_client.post(
        CHANGELIST,
        {"action": "claim", "_selected_action": [items["split"].pk, items["veto"].pk]},
        follow=True,
    )
    text = response.content.decode()
    assert "Claimed 1 item(s)." in text
    assert "was claimed by bob" in text
    items["split"].refresh_from_db()
    assert (items["split"].status, items["split"].assignee) == ("claimed", admin_user)
    assert ReviewEvent.objects.filter(
        item=items["split"], action="claimed", actor=admin_user
    ).exists()


def test_the_uphold_action_asks_for_a_note_then_resolves(admin_client, admin_user, items):
    chosen = [items["split"].pk, items["low"].pk]
    confirm = admin_client.post(
        CHANGELIST, {"action": "resolve_uphold", "_selected_action": chosen}
    )
    assert confirm.status_code == 200
    assert "keep <strong>WARN</strong>" in confirm.content.decode()
    missing = admin_client.post(
        CHANGELIST,
        {"action": "resolve_uphold", "apply": "1", "_selected_action": chosen, "note": ""},
    )
    assert "A note is required" in missing.content.decode()
    assert ReviewItem.objects.filter(pk__in=chosen, status="open").count() == 2
    done = admin_client.post(
        CHANGELIST,
        {
            "action": "resolve_uphold",
            "apply": "1",
            "_selected_action": chosen,
            "note": "WARN with caveats is right for investment questions.",
        },
        follow=True,
    )
    assert "Upheld the machine&#x27;s decision on 2 item(s)." in done.content.decode()
    split = ReviewItem.objects.get(pk=items["split"].pk)
    assert (split.status, split.verdict, split.assignee) == ("resolved", "uphold", admin_user)
    assert split.debate.review_status == "resolved"
    assert split.debate.effective_decision == "WARN"


def test_staff_without_the_change_permission_get_no_actions(client, staff, items):
    staff.groups.clear()  # no role: only the permission given here
    staff.user_permissions.add(Permission.objects.get(codename="view_reviewitem"))
    client.force_login(staff)
    response = client.get(CHANGELIST)
    assert response.status_code == 200
    assert 'value="claim"' not in response.content.decode()
    client.post(CHANGELIST, {"action": "claim", "_selected_action": [items["split"].pk]})
    items["split"].refresh_from_db()
    assert items["split"].status == "open"


def test_the_debate_admin_shows_the_effective_decision(admin_client, items, staff):
    services.review_resolve(
        item_id=items["split"].pk,
        user=staff,
        verdict="override",
        decision="REFUSE",
        note="too risky",
    )
    url = reverse("admin:debates_debate_changelist")
    text = admin_client.get(url, {"review_status": "resolved"}).content.decode()
    assert "REFUSE (reviewer override; machine: WARN)" in text
