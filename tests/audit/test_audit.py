"""The audit trail: append-only in the database, kept after its subject, read-only in the admin."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, transaction
from django.urls import reverse

import audit
from accounts.models import ApiToken
from accounts.services import token_issue, token_revoke
from audit.models import AuditEntry

pytestmark = pytest.mark.django_db


@pytest.fixture
def ana(django_user_model):
    return django_user_model.objects.create_user("ana", password="pw-long-enough")


def test_entries_cannot_be_changed_or_deleted(ana):
    entry = audit.record(actor=ana, action="test.act", subject=ana, note="kept")

    for attempt in (
        lambda: AuditEntry.objects.filter(pk=entry.pk).update(note="rewritten"),
        lambda: AuditEntry.objects.filter(pk=entry.pk).delete(),
    ):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            attempt()

    assert AuditEntry.objects.get(pk=entry.pk).note == "kept"


def test_entries_outlive_the_subject_and_the_actor(django_user_model, ana):
    boss = django_user_model.objects.create_superuser("boss", password="pw-long-enough")
    token, _ = token_issue(user=ana, name="ci", issued_by=boss)
    token_revoke(token_ids=[token.pk], revoked_by=boss)
    token_id = token.pk

    ana.delete()  # cascades to the token
    boss.delete()

    assert not ApiToken.objects.exists()
    entries = AuditEntry.objects.filter(
        subject_type="accounts.apitoken", subject_id=str(token_id)
    ).order_by("at", "id")
    assert [(e.action, e.actor_name) for e in entries] == [
        ("token.issue", "boss"),
        ("token.revoke", "boss"),
    ]


def test_diff_lists_only_what_changed():
    assert audit.diff({"a": 1, "b": "x"}, {"a": 1, "b": "y"}) == {"b": {"from": "x", "to": "y"}}


def test_the_admin_lists_and_filters_entries_and_offers_no_edit(admin_client, ana):
    audit.record(actor=ana, action="agent.change", subject=ana, changes={"x": {"from": 1, "to": 2}})
    audit.record(actor=None, action="token.issue", subject=ana)
    url = reverse("admin:audit_auditentry_changelist")

    everything = admin_client.get(url).content.decode()
    filtered = admin_client.get(url, {"action": "agent.change"}).content.decode()

    assert "agent.change" in everything and "token.issue" in everything
    assert "x: 1 → 2" in filtered and "token.issue</td>" not in filtered
    entry = AuditEntry.objects.get(action="agent.change")
    page = admin_client.get(reverse("admin:audit_auditentry_change", args=[entry.pk]))
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert admin_client.get(reverse("admin:audit_auditentry_add")).status_code == 403
    assert (
        admin_client.post(
            reverse("admin:audit_auditentry_delete", args=[entry.pk]), {"post": "yes"}
        ).status_code
        == 403
    )
