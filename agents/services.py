"""Writes to agents: every creation, edit and deletion is versioned and recorded in the audit
trail, whoever makes it (the admin, the command line; the API should call these too)."""

from __future__ import annotations

from django.db import transaction

import audit
from agents.models import Agent, AgentVersion

# What a version keeps and an audit entry compares (timestamps are not part of an agent's state).
VERSIONED_FIELDS = (
    "name", "slug", "role", "position", "is_active", "protocols", "guiding_question",
    "system_prompt", "model_name", "temperature", "can_veto", "veto_risk_threshold",
)


def agent_snapshot(agent: Agent) -> dict:
    return audit.snapshot(agent, VERSIONED_FIELDS)


def _add_version(agent: Agent, *, snapshot: dict, changes: dict, actor) -> AgentVersion:
    last = agent.versions.order_by("-number").values_list("number", flat=True).first() or 0
    return AgentVersion.objects.create(
        agent=agent,
        agent_slug=agent.slug,
        number=last + 1,
        snapshot=snapshot,
        changes=changes,
        changed_by_id=getattr(actor, "pk", None),
        changed_by_name=actor.get_username() if actor is not None else "",
    )


@transaction.atomic
def agent_save(*, agent: Agent, actor=None, note: str = "") -> Agent:
    """Store a new or edited agent (already validated), as a new version, with an audit entry
    saying what changed from what to what. Saving without a change records nothing."""
    before = None
    if agent.pk is not None:
        current = Agent.objects.select_for_update().filter(pk=agent.pk).first()
        before = agent_snapshot(current) if current is not None else None
    agent.save()
    after = agent_snapshot(agent)
    if before is None:
        changes = {name: {"from": None, "to": value} for name, value in after.items()}
        action = "agent.create"
    else:
        changes = audit.diff(before, after)
        if not changes:
            return agent
        action = "agent.change"
        if not agent.versions.exists():  # created before versioning: keep where it started
            _add_version(agent, snapshot=before, changes={}, actor=None)
    version = _add_version(agent, snapshot=after, changes=changes, actor=actor)
    audit.record(actor=actor, action=action, subject=agent, changes=changes,
                 note=note or f"version {version.number}")
    return agent


@transaction.atomic
def agent_delete(*, agent: Agent, actor=None) -> None:
    """Delete the agent; its versions and audit entries stay."""
    snapshot = agent_snapshot(agent)
    audit.record(
        actor=actor, action="agent.delete", subject=agent,
        changes={name: {"from": value, "to": None} for name, value in snapshot.items()},
    )
    agent.delete()
