"""Double review: a share of items, and every veto override, get two independent reviews; the
second reviewer does not see the first until they give theirs; agreeing closes the item, a
disagreement goes to a third reviewer. Agreement is Cohen's kappa, checked on sets whose value
is known, and raced: two reviewers sending the second review at once."""

from __future__ import annotations

import pytest

from debates.models import Debate, Participant, Vote
from debates.reviewing.items import review_items_for_debate
from reviews import agreement, services
from reviews.models import ReviewerVerdict, ReviewItem
from tests.api.conftest import client_for
from tests.factories import StaffFactory
from tests.reviews.conftest import completed_debate, vetoed_item
from tests.reviews.test_services import _race

SPLIT = {"consensus_type": "split", "vote_breakdown": {"ACT": 1, "WARN": 1, "REFUSE": 1}}


@pytest.fixture
def trio(db):
    return [StaffFactory(username=name) for name in ("ana", "bea", "cy")]


def _drawn_item(settings, question="Split?", decision="WARN") -> ReviewItem:
    settings.REVIEW_DOUBLE_REVIEW_SHARE = 1.0
    debate = completed_debate(question, decision=decision, metadata=SPLIT)
    [item] = review_items_for_debate(debate=debate)
    assert item.double_review
    return item


def _effective(item) -> str:
    return Debate.objects.get(pk=item.debate_id).effective_decision


# --- the kappa itself ---------------------------------------------------------------------------


def test_cohens_kappa_on_tables_whose_value_is_known():
    # 50 pairs: 20 both yes, 5 yes/no, 10 no/yes, 15 both no: p_o 0.7, p_e 0.5, kappa 0.4
    pairs = [("y", "y")] * 20 + [("y", "n")] * 5 + [("n", "y")] * 10 + [("n", "n")] * 15
    found = agreement.cohen_kappa(pairs)
    assert (round(found.kappa, 10), found.n, found.observed) == (0.4, 50, 0.7)
    assert agreement.cohen_kappa([("a", "a"), ("b", "b")]).kappa == 1.0
    assert agreement.cohen_kappa([("a", "b"), ("b", "a")]).kappa == -1.0
    assert agreement.cohen_kappa([]).as_json() == {
        "kappa": None,
        "n": 0,
        "observed_agreement": None,
    }
    # one label throughout: chance agrees on everything, kappa is undefined
    assert agreement.cohen_kappa([("a", "a")] * 3).kappa is None


# --- the flow -------------------------------------------------------------------------------------


def test_a_drawn_item_waits_for_an_independent_second_review_that_agrees(settings, trio):
    ana, bea, _ = trio
    item = _drawn_item(settings)
    services.review_resolve(
        item_id=item.pk, user=ana, verdict="override", decision="REFUSE", note="too risky"
    )
    item.refresh_from_db()
    assert (item.status, item.stage, item.assignee, item.verdict) == ("open", "second", None, "")
    assert _effective(item) == "WARN"  # nothing takes effect before the second review
    with pytest.raises(services.ReviewConflict, match="another reviewer"):
        services.review_resolve(
            item_id=item.pk, user=ana, verdict="uphold", note="again", stage="second"
        )
    services.review_resolve(
        item_id=item.pk,
        user=bea,
        verdict="override",
        decision="REFUSE",
        note="agree",
        stage="second",
    )
    item.refresh_from_db()
    assert (item.status, item.verdict, item.decision_override) == ("resolved", "override", "REFUSE")
    assert _effective(item) == "REFUSE"
    assert list(item.verdicts.values_list("stage", "outcome")) == [
        ("first", "REFUSE"),
        ("second", "REFUSE"),
    ]


def test_a_disagreement_goes_to_a_third_reviewer_who_sees_both(settings, trio, client):
    ana, bea, cy = trio
    item = _drawn_item(settings)
    services.review_resolve(item_id=item.pk, user=ana, verdict="uphold", note="WARN is right")
    client.force_login(bea)
    page = client.get(f"/reviews/{item.pk}/").content.decode()
    assert "WARN is right" not in page and "shows once you give yours" in page
    response = client.post(
        f"/reviews/{item.pk}/resolve/",
        {
            "verdict": "override",
            "decision": "REFUSE",
            "note": "No: refuse",
            "review_stage": "second",
        },
    )
    assert response.status_code == 302
    item.refresh_from_db()
    assert (item.status, item.stage) == ("open", "adjudication")
    assert _effective(item) == "WARN"
    client.force_login(cy)
    page = client.get(f"/reviews/{item.pk}/").content.decode()
    assert "WARN is right" in page and "No: refuse" in page and "Adjudication" in page
    services.review_resolve(
        item_id=item.pk,
        user=cy,
        verdict="override",
        decision="REFUSE",
        note="the second is right",
        stage="adjudication",
    )
    item.refresh_from_db()
    assert (item.status, item.assignee, item.decision_override) == ("resolved", cy, "REFUSE")
    assert list(item.verdicts.values_list("stage", flat=True)) == [
        "first",
        "second",
        "adjudication",
    ]


def test_a_veto_override_takes_effect_at_once_and_is_reviewed_again(trio):
    ana, bea, cy = trio
    item = vetoed_item()
    services.review_claim(item_id=item.pk, user=ana)
    services.review_resolve(
        item_id=item.pk,
        user=ana,
        verdict="override",
        decision="ACT",
        note="a parent",
        confirm_veto_override=True,
    )
    item.refresh_from_db()
    assert (item.status, item.stage) == ("open", "second")
    assert _effective(item) == "ACT"  # REVIEW_VETO_OVERRIDE_APPROVAL is off
    # the second reviewer disagrees; the adjudicator restores the veto
    services.review_resolve(
        item_id=item.pk, user=bea, verdict="uphold", note="the veto is right", stage="second"
    )
    services.review_resolve(
        item_id=item.pk, user=cy, verdict="uphold", note="refuse", stage="adjudication"
    )
    item.refresh_from_db()
    assert (item.status, item.verdict) == ("resolved", "uphold")
    assert _effective(item) == "REFUSE"


@pytest.mark.django_db(transaction=True)
def test_the_second_review_raced_by_two_reviewers_is_given_once(settings):
    ana, bea, cy = (StaffFactory(username=n) for n in ("ana", "bea", "cy"))
    item = _drawn_item(settings)
    services.review_resolve(
        item_id=item.pk, user=ana, verdict="override", decision="REFUSE", note="refuse"
    )
    results, conflicts = _race(
        *(
            lambda who=who: services.review_resolve(
                item_id=item.pk, user=who, verdict="uphold", note="warn", stage="second"
            )
            for who in (bea, cy)
        )
    )
    assert len(results) == 1 and len(conflicts) == 1
    assert "no longer awaits its second review" in conflicts[0]
    item.refresh_from_db()
    assert item.stage == "adjudication"
    assert ReviewerVerdict.objects.filter(item=item, stage="second").count() == 1


# --- agreement on a generated set -----------------------------------------------------------


def _generated_set(settings, ana, bea) -> None:
    """50 debates the machine decided ACT, each reviewed twice: ACT by upholding, REFUSE by
    overriding. Ana's and Bea's labels follow the table 20 ACT/ACT, 5 ACT/REFUSE, 10
    REFUSE/ACT, 15 REFUSE/REFUSE; each debate's Safety Agent voted as Ana did."""
    table = (
        [("ACT", "ACT")] * 20
        + [("ACT", "REFUSE")] * 5
        + [("REFUSE", "ACT")] * 10
        + [("REFUSE", "REFUSE")] * 15
    )
    for i, (first, second) in enumerate(table):
        item = _drawn_item(settings, f"Generated question {i}?", decision="ACT")
        safety = Participant.objects.create(
            debate_id=item.debate_id,
            position=0,
            name="Safety Agent",
            slug="safety",
            role="safety",
            system_prompt="",
            temperature=0.2,
        )
        Vote.objects.create(
            debate_id=item.debate_id,
            participant=safety,
            decision="VETO" if first == "REFUSE" else "ACT",
            confidence=80,
            risk=60,
        )
        for who, label, stage in ((ana, first, "first"), (bea, second, "second")):
            verdict = (
                {"verdict": "uphold"}
                if label == "ACT"
                else {
                    "verdict": "override",
                    "decision": "REFUSE",
                }
            )
            services.review_resolve(item_id=item.pk, user=who, note=label, stage=stage, **verdict)


def test_kappa_over_the_api_and_on_analytics_on_a_generated_set(settings, trio, client):
    ana, bea, _ = trio
    _generated_set(settings, ana, bea)
    body = client_for(ana).get("/api/v1/reviews/agreement/").json()
    assert body["verdicts"] == 100
    # reviewers: p_o 0.7, p_e 0.5*0.6 + 0.5*0.4 = 0.5 -> 0.4
    assert body["reviewers"] == {"kappa": 0.4, "n": 50, "observed_agreement": 0.7}
    # reviewers and the Safety Agent (a VETO is REFUSE): 100 verdicts, 85 agree; the
    # reviewers said ACT 55 times, the agent 50: p_e 0.55*0.5 + 0.45*0.5 = 0.5 -> 0.7
    assert body["agent_roles"] == [
        {"role": "Safety Agent", "kappa": 0.7, "n": 100, "observed_agreement": 0.85}
    ]
    # reviewers and the protocol (the machine said ACT every time): p_o = p_e = 0.55 -> 0
    assert body["protocols"] == [
        {"protocol": "s4", "kappa": 0.0, "n": 100, "observed_agreement": 0.55}
    ]
    client.force_login(ana)
    page = client.get("/analytics/").content.decode()
    section = page[page.index('id="agreement"') :]
    assert "<td>0.40</td><td>50</td><td>0.70</td>" in section
    assert "<td>Safety Agent</td><td>0.70</td><td>100</td><td>0.85</td>" in section
    assert "<td>s4</td><td>0.00</td><td>100</td><td>0.55</td>" in section
