"""Writes and checks for agents: the one validator the admin and the API both use, and the
writes that version every creation, edit and deletion and record it in the audit trail, whoever
makes it (the admin, the API, the command line).

Which protocols an agent may take part in is the debates app's to say (its protocol registry);
it tells this module when it is ready (`set_protocol_names`), so agents import no debate code.
A selector (``auto``, which picks another protocol per debate) is not one an agent takes part
in, and is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.core.exceptions import ValidationError
from django.db import transaction

import audit
from agents.models import Agent, AgentVersion

_protocol_names: Callable[[], list[str]] = list


def set_protocol_names(source: Callable[[], list[str]]) -> None:
    """Called by the debates app: `source()` lists the protocols an agent may take part in."""
    global _protocol_names
    _protocol_names = source


def agent_protocol_names() -> list[str]:
    return list(_protocol_names())


def agent_protocols_clean(protocols: Iterable[str]) -> list[str]:
    """The protocols an agent takes part in by default, checked: every one must be a protocol
    an agent can take part in. Raises `ValidationError` ({"protocols": message})."""
    protocols = list(protocols)
    known = agent_protocol_names()
    unknown = [p for p in protocols if p not in known]
    if unknown:
        raise ValidationError(
            {"protocols": f"Unknown protocol(s): {', '.join(unknown)}. Known: {', '.join(known)}."}
        )
    return protocols


# What a version keeps and an audit entry compares (timestamps are not part of an agent's state).
VETO_PERMISSION = "agents.change_agent_veto"


#: What makes a veto-capable agent the one it is: changing any of them could sideline its veto
#: (another role, no protocols, a prompt or a model that never vetoes).
VETO_AGENT_FIELDS = ("is_active", "role", "protocols", "system_prompt", "model_name")


def veto_power_changes(agent: Agent | None, data: dict) -> list[str]:
    """The fields of `data` that would change `agent`'s veto power (a new agent when None):
    whether it can veto, its threshold, and, for an agent that can veto, whether it takes part,
    its role, its protocols, its prompt and its model."""
    current = agent or Agent()
    fields = ["can_veto", "veto_risk_threshold"]
    if current.can_veto or data.get("can_veto"):
        fields.extend(VETO_AGENT_FIELDS)
    if agent is None and not data.get("can_veto"):
        return []  # a new agent without a veto: its threshold means nothing yet
    return [f for f in fields if f in data and data[f] != getattr(current, f)]


VERSIONED_FIELDS = (
    "name",
    "slug",
    "role",
    "position",
    "is_active",
    "protocols",
    "guiding_question",
    "system_prompt",
    "model_name",
    "temperature",
    "can_veto",
    "veto_risk_threshold",
)


def agent_snapshot(agent: Agent) -> dict:
    return audit.snapshot(agent, VERSIONED_FIELDS)


def _version(agent: Agent, *, number: int, snapshot: dict, changes: dict, actor) -> AgentVersion:
    """Version `number` of `agent`, not stored yet."""
    return AgentVersion(
        agent=agent,
        agent_slug=agent.slug,
        number=number,
        snapshot=snapshot,
        changes=changes,
        changed_by_id=getattr(actor, "pk", None),
        changed_by_name=actor.get_username() if actor is not None else "",
    )


def _add_version(agent: Agent, *, snapshot: dict, changes: dict, actor) -> AgentVersion:
    last = agent.versions.order_by("-number").values_list("number", flat=True).first() or 0
    version = _version(agent, number=last + 1, snapshot=snapshot, changes=changes, actor=actor)
    version.save(force_insert=True)
    return version


def _created(snapshot: dict) -> dict:
    """The changes of an agent's creation: every versioned field from nothing."""
    return {name: {"from": None, "to": value} for name, value in snapshot.items()}


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
        changes = _created(after)
        action = "agent.create"
    else:
        changes = audit.diff(before, after)
        if not changes:
            return agent
        action = "agent.change"
        if not agent.versions.exists():  # created before versioning: keep where it started
            _add_version(agent, snapshot=before, changes={}, actor=None)
    version = _add_version(agent, snapshot=after, changes=changes, actor=actor)
    audit.record(
        actor=actor,
        action=action,
        subject=agent,
        changes=changes,
        note=note or f"version {version.number}",
    )
    return agent


@transaction.atomic
def agents_create(*, agents: list[Agent], actor=None, note: str = "") -> list[Agent]:
    """Store several new agents (already validated) as `agent_save` stores one, each with its
    first version and an audit entry, in three statements whatever their number."""
    Agent.objects.bulk_create(agents)
    versions, entries = [], []
    for agent in agents:
        after = agent_snapshot(agent)
        changes = _created(after)
        versions.append(_version(agent, number=1, snapshot=after, changes=changes, actor=actor))
        entries.append(
            {
                "actor": actor,
                "action": "agent.create",
                "subject": agent,
                "changes": changes,
                "note": note or "version 1",
            }
        )
    AgentVersion.objects.bulk_create(versions)
    audit.record_many(entries)
    return agents


@transaction.atomic
def agent_delete(*, agent: Agent, actor=None) -> None:
    """Delete the agent; its versions and audit entries stay."""
    snapshot = agent_snapshot(agent)
    audit.record(
        actor=actor,
        action="agent.delete",
        subject=agent,
        changes={name: {"from": value, "to": None} for name, value in snapshot.items()},
    )
    agent.delete()
