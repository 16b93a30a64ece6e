"""The admin as an analyst meets it: an override action beside "Resolve: uphold" that keeps to
the roles (a veto overridden to ACT needs the Operator role), help written for analysts,
Celery beat's raw tables only in an operator's section, and one date format."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from accounts.roles import OPERATOR, REVIEWER
from reviews.models import ReviewItem
from tests.factories import with_roles
from tests.reviews.conftest import SPLIT, VETO, run_offline

CHANGELIST = reverse("admin:reviews_reviewitem_changelist")
PASSWORD = "a-long-passphrase"


@pytest.fixture
def reviewer_client(client, django_user_model):
    user = with_roles(
        django_user_model.objects.create_user("rita", password=PASSWORD, is_staff=True), REVIEWER
    )
    client.force_login(user)
    client.user = user
    return client


@pytest.fixture
def operator_client(django_user_model):
    from django.test import Client

    user = with_roles(
        django_user_model.objects.create_user("otto", password=PASSWORD, is_staff=True), OPERATOR
    )
    client = Client()
    client.force_login(user)
    return client


def _override(client, items, decision: str, note: str = "Reads as advice; refuse it."):
    return client.post(
        CHANGELIST,
        {
            "action": "resolve_override",
            "apply": "1",
            "_selected_action": [i.pk for i in items],
            "decision": decision,
            "note": note,
        },
        follow=True,
    )


def test_the_override_action_asks_for_a_decision_and_a_note_then_overrides(
    reviewer_client, default_agents
):
    split = ReviewItem.objects.get(debate=run_offline(SPLIT))
    changelist = reviewer_client.get(CHANGELIST).content.decode()
    assert 'value="resolve_uphold"' in changelist and 'value="resolve_override"' in changelist
    confirm = reviewer_client.post(
        CHANGELIST, {"action": "resolve_override", "_selected_action": [split.pk]}
    ).content.decode()
    assert '<label for="id_decision">New decision</label>' in confirm
    for decision in ("ACT", "WARN", "REFUSE"):
        assert f'<option value="{decision}">' in confirm
    missing = reviewer_client.post(
        CHANGELIST,
        {"action": "resolve_override", "apply": "1", "_selected_action": [split.pk]},
    ).content.decode()
    assert "Choose the decision that replaces the machine" in missing
    assert "A note is required" in missing
    done = _override(reviewer_client, [split], "REFUSE").content.decode()
    assert "Set the decision REFUSE on 1 item(s)." in done
    split.refresh_from_db()
    assert (split.status, split.verdict, split.decision_override) == (
        "resolved",
        "override",
        "REFUSE",
    )
    assert split.debate.effective_decision == "REFUSE"


def test_a_veto_is_never_overridden_to_act_in_the_admin(
    reviewer_client, operator_client, default_agents
):
    """A bulk action cannot claim and confirm item by item: a veto is overridden on its review
    page (or over the API); not even an Operator overrides one here."""
    veto = ReviewItem.objects.get(debate=run_offline(VETO))
    refused = _override(reviewer_client, [veto], "ACT", "A false alarm.").content.decode()
    assert "Set the decision ACT on 1" not in refused
    assert f"#{veto.pk}: An agent vetoed this debate" in refused
    done = _override(operator_client, [veto], "ACT", "A false alarm.").content.decode()
    assert "Set the decision ACT on 1" not in done
    assert f"#{veto.pk}: a safety veto is overridden to ACT only on the item" in done
    veto.refresh_from_db()
    assert (veto.status, veto.decision_override) == ("open", "")


BEAT = ("periodictask", "crontabschedule", "intervalschedule", "solarschedule", "clockedschedule")


def test_celery_beat_tables_are_an_operators_section_only(
    reviewer_client, operator_client, admin_client
):
    index = reviewer_client.get(reverse("admin:index")).content.decode()
    assert "Celery beat" not in index and "Periodic tasks" not in index
    for model in BEAT:
        url = reverse(f"admin:django_celery_beat_{model}_changelist")
        assert reviewer_client.get(url).status_code == 403
        assert operator_client.get(url).status_code == 200
    operator_index = operator_client.get(reverse("admin:index")).content.decode()
    assert "Operator: Celery beat internals" in operator_index
    add = reverse("admin:django_celery_beat_crontabschedule_add")
    assert operator_client.get(add).status_code == 403  # operators only look
    assert admin_client.get(add).status_code == 200


def test_help_texts_speak_to_analysts_not_developers(admin_client, default_agents):
    item = ReviewItem.objects.get(debate=run_offline(SPLIT))
    page = admin_client.get(reverse("admin:reviews_reviewitem_change", args=[item.pk]))
    text = page.content.decode()
    assert "reviews/triage.py" not in text
    field = ReviewItem._meta.get_field("priority")
    assert ".py" not in str(field.help_text)
    from django.apps import apps

    for model in apps.get_models():
        for f in model._meta.get_fields():
            help_text = str(getattr(f, "help_text", "") or "")
            assert not re.search(r"\w+/\w+\.py|see \w+\.py", help_text), (model, f.name)


def test_one_date_format_on_the_pages_and_in_the_admin(admin_client, default_agents):
    debate = run_offline(SPLIT)
    shown = debate.created_at.strftime("%Y-%m-%d %H:%M")
    admin_page = admin_client.get(reverse("admin:debates_debate_changelist")).content.decode()
    assert shown in admin_page
    page = admin_client.get(reverse("debates:list")).content.decode()
    assert shown in page
