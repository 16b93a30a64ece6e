"""The audit trail of staff actions: an append-only log any app may write to.

A low layer: it imports no other app of the project; the apps call `audit.record(...)`."""

from __future__ import annotations

import json
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder


def record(**fields: Any):
    """Append one entry (`entry`'s arguments) and return it. Call it inside the transaction of
    the change it records, so the entry and the change are stored together or not at all."""
    stored = entry(**fields)
    stored.save(force_insert=True)
    return stored


def record_many(entries: list[dict[str, Any]]) -> list:
    """Append several entries in one statement, each given as `entry`'s arguments, in order."""
    from audit.models import AuditEntry

    return AuditEntry.objects.bulk_create([entry(**fields) for fields in entries])


def entry(
    *,
    actor,
    action: str,
    subject,
    changes: dict[str, Any] | None = None,
    note: str = "",
    subject_type: str = "",
    subject_id: Any = None,
    subject_repr: str = "",
):
    """One entry, not stored yet (`record` stores it):

    - `actor`: the user who acted (None for the system);
    - `action`: a dotted name, e.g. "token.issue", "agent.change", "review.resolve";
    - `subject`: the model instance acted on (or None with `subject_type`/`subject_id` given);
    - `changes`: {"field": {"from": old, "to": new}}, JSON values (see `diff`);
    - `note`: free text (a reviewer's note, a reason).
    """
    from audit.models import AuditEntry

    if subject is not None:
        subject_type = subject_type or subject._meta.label_lower
        subject_id = subject.pk if subject_id is None else subject_id
        subject_repr = subject_repr or str(subject)
    if not subject_type or subject_id is None:
        raise ValueError("An audit entry needs a subject (an instance, or its type and id).")
    return AuditEntry(
        actor_id=getattr(actor, "pk", None),
        actor_name=actor.get_username() if actor is not None else "",
        action=action,
        subject_type=subject_type,
        subject_id=str(subject_id),
        subject_repr=subject_repr[:200],
        changes=changes or {},
        note=note,
    )


class _Encoder(DjangoJSONEncoder):
    """Django's encoder, and the text of anything else (time zones, enums ...)."""

    def default(self, o):
        try:
            return super().default(o)
        except TypeError:
            return str(o)


def snapshot(instance, fields) -> dict[str, Any]:
    """The JSON-ready values of `fields` on `instance` (foreign keys as their ids)."""
    values = {}
    for name in fields:
        field = instance._meta.get_field(name)
        values[name] = getattr(instance, field.attname)
    return json.loads(json.dumps(values, cls=_Encoder))


def diff(before: dict[str, Any], after: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The fields whose value differs, as {"field": {"from": old, "to": new}}."""
    return {
        name: {"from": before.get(name), "to": after.get(name)}
        for name in after
        if before.get(name) != after.get(name)
    }
