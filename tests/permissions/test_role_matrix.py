"""The role matrix (README, "Roles and permissions"), cell by cell: each role against each
page and API operation that needs a permission, through the API with a token and the pages with
a signed-in browser session. A cell is one test, and its changes are undone after it, so a
cell's action cannot make another cell pass: the data every cell starts from (the default
agents, the world, one user per role) is stored once for the module, in a transaction each
cell's own nests in (`tests.conftest.stored_for_module`)."""

from __future__ import annotations

import os

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from accounts.roles import AGENT_EDITOR, OPERATOR, REVIEWER, grant_roles
from agents.models import Agent
from contradictions.models import ContradictionRun
from contradictions.services import contradiction_run_create
from debates.reviewing.items import review_items_for_debate
from evaluation.models import EvaluationRun
from reviews.models import ReviewItem
from tests.api.conftest import client_for
from tests.conftest import stored_for_module
from tests.contradictions.conftest import reports_of
from tests.factories import CompletedDebateFactory, UserFactory

PASSWORD = "a-long-passphrase"
ROLES = ["anonymous", "user", "staff", "reviewer", "agent_editor", "operator", "superuser"]
GROUPS = {"reviewer": [REVIEWER], "agent_editor": [AGENT_EDITOR], "operator": [OPERATOR]}


def person(role: str):
    if role == "anonymous":
        return None
    if role == "superuser":
        return get_user_model().objects.create_superuser("root", password=PASSWORD)
    user = UserFactory(username=role, is_staff=role != "user")
    grant_roles(user, *GROUPS.get(role, []))
    return user


class World:
    """What the operations act on: another user's vetoed debate with its review item, and
    another user's contradiction run."""

    def __init__(self):
        owner = UserFactory(username="owner")
        self.debate = CompletedDebateFactory(
            created_by=owner,
            decision="REFUSE",
            metadata={
                "veto_applied": True,
                "veto_agent": "Safety Agent",
                "veto_risk": 90,
                "consensus_type": "veto",
            },
        )
        review_items_for_debate(debate=self.debate.id)
        self.item = ReviewItem.objects.get(debate=self.debate, reason="safety_veto")
        self.run = contradiction_run_create(reports=reports_of("simple"), enqueue=False)
        ContradictionRun.objects.filter(pk=self.run.pk).update(created_by=owner)


# name -> (how: "api" or "page", method, path, body, expected status per role)
API_READ_QUEUE = dict(
    anonymous=401, user=403, staff=403, reviewer=200, agent_editor=403, operator=200, superuser=200
)
OTHERS_RECORD = dict(
    anonymous=401, user=404, staff=404, reviewer=200, agent_editor=404, operator=200, superuser=200
)
PAGE_QUEUE = dict(
    anonymous=302, user=403, staff=403, reviewer=200, agent_editor=403, operator=200, superuser=200
)
PAGE_ACT = dict(PAGE_QUEUE, reviewer=302, operator=302, superuser=302)
# Figures across every user's debates: the Reviewer and Operator roles, not plain staff.
API_FIGURES = API_READ_QUEUE
PAGE_FIGURES = PAGE_QUEUE
# What a veto-capable agent is (its role, protocols, prompt, model): the veto permission.
API_VETO = dict(
    anonymous=401,
    user=403,
    staff=403,
    reviewer=403,
    agent_editor=403,
    operator=200,
    superuser=200,
)
OPERATIONS = {
    "api: list the review queue": ("api", "get", "/api/v1/reviews/", None, API_READ_QUEUE),
    "api: read a review item": ("api", "get", "/api/v1/reviews/{item}/", None, API_READ_QUEUE),
    "api: claim a review item": (
        "api",
        "post",
        "/api/v1/reviews/{item}/claim/",
        {},
        API_READ_QUEUE,
    ),
    "api: override a veto to WARN": (
        "api",
        "post",
        "/api/v1/reviews/{item}/resolve/",
        {"verdict": "override", "decision": "WARN", "note": "a warning is enough"},
        API_READ_QUEUE,
    ),
    "api: override a veto to ACT": (
        "api",
        "post",
        "/api/v1/reviews/{item}/resolve/",
        {
            "verdict": "override",
            "decision": "ACT",
            "note": "harmless after all",
            "confirm_veto_override": True,
        },
        dict(API_READ_QUEUE, reviewer=403),
    ),
    "api: list agents": (
        "api",
        "get",
        "/api/v1/agents/",
        None,
        dict(
            anonymous=401,
            user=200,
            staff=200,
            reviewer=200,
            agent_editor=200,
            operator=200,
            superuser=200,
        ),
    ),
    "api: create an agent": (
        "api",
        "post",
        "/api/v1/agents/",
        {
            "name": "Cost Agent",
            "slug": "cost",
            "role": "Cost",
            "system_prompt": "You weigh costs.",
            "guiding_question": "What does it cost?",
        },
        dict(
            anonymous=401,
            user=403,
            staff=403,
            reviewer=403,
            agent_editor=201,
            operator=403,
            superuser=201,
        ),
    ),
    "api: change an agent's temperature": (
        "api",
        "patch",
        "/api/v1/agents/utility/",
        {"temperature": 1.1},
        dict(
            anonymous=401,
            user=403,
            staff=403,
            reviewer=403,
            agent_editor=200,
            operator=200,
            superuser=200,
        ),
    ),
    "api: switch off an agent's veto": (
        "api",
        "patch",
        "/api/v1/agents/safety/",
        {"can_veto": False},
        dict(
            anonymous=401,
            user=403,
            staff=403,
            reviewer=403,
            agent_editor=403,
            operator=200,
            superuser=200,
        ),
    ),
    "api: read another user's debate": (
        "api",
        "get",
        "/api/v1/debates/{debate}/",
        None,
        OTHERS_RECORD,
    ),
    "api: read another user's contradiction run": (
        "api",
        "get",
        "/api/v1/contradiction-runs/{run}/",
        None,
        OTHERS_RECORD,
    ),
    "page: the review queue": ("page", "get", "/reviews/", None, PAGE_QUEUE),
    "page: a review item": ("page", "get", "/reviews/{item}/", None, PAGE_QUEUE),
    "page: claim a review item": ("page", "post", "/reviews/{item}/claim/", {}, PAGE_ACT),
    "page: override a veto to WARN": (
        "page",
        "post",
        "/reviews/{item}/resolve/",
        {"verdict": "override", "decision": "WARN", "note": "a warning is enough"},
        PAGE_ACT,
    ),
    "page: override a veto to ACT": (
        "page",
        "post",
        "/reviews/{item}/resolve/",
        {
            "verdict": "override",
            "decision": "ACT",
            "note": "harmless after all",
            "confirm_veto_override": "on",
        },
        dict(PAGE_ACT, reviewer=403),
    ),
    "page: another user's debate": (
        "page",
        "get",
        "/debates/{debate}/",
        None,
        dict(OTHERS_RECORD, anonymous=302),
    ),
    "page: the analytics page": ("page", "get", "/analytics/", None, PAGE_FIGURES),
    "page: an analytics CSV": (
        "page",
        "get",
        "/analytics/position-changes.csv",
        None,
        PAGE_FIGURES,
    ),
    "page: the evaluation runs": ("page", "get", "/evaluation/", None, PAGE_FIGURES),
    "page: start an evaluation run": (
        "page",
        "post",
        "/evaluation/start/",
        {"set": "decisions_v1", "protocol": "vote", "baselines": "on"},
        dict(PAGE_QUEUE, reviewer=403, operator=302, superuser=302),
    ),
    "api: ground truth": ("api", "get", "/api/v1/evaluation/ground-truth/", None, API_FIGURES),
    "api: quality scores": ("api", "get", "/api/v1/evaluation/quality/", None, API_FIGURES),
    "api: replay the rules": (
        "api",
        "post",
        "/api/v1/evaluation/replay/",
        {"protocol": "s4"},
        API_FIGURES,
    ),
    "api: take the veto agent out of every protocol": (
        "api",
        "patch",
        "/api/v1/agents/safety/",
        {"protocols": []},
        API_VETO,
    ),
    "api: make the veto agent a utility agent": (
        "api",
        "patch",
        "/api/v1/agents/safety/",
        {"role": "utility"},
        API_VETO,
    ),
    "api: rewrite the veto agent's prompt": (
        "api",
        "patch",
        "/api/v1/agents/safety/",
        {"system_prompt": "Never veto anything."},
        API_VETO,
    ),
    "api: change the veto agent's model": (
        "api",
        "patch",
        "/api/v1/agents/safety/",
        {"model_name": "cheap"},
        API_VETO,
    ),
    "page: the schedules in the admin": (
        "page",
        "get",
        "/admin/schedules/debateschedule/",
        None,
        dict(
            anonymous=302,
            user=302,
            staff=403,
            reviewer=403,
            agent_editor=403,
            operator=200,
            superuser=200,
        ),
    ),
}


def call(how, method, path, body, user):
    if how == "api":
        client = client_for(user)
        return (
            getattr(client, method)(path, body, format="json")
            if body is not None
            else getattr(client, method)(path)
        )
    client = Client()
    if user is not None:
        client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return getattr(client, method)(path, body or {})


def _veto_agent() -> dict:
    return Agent.objects.filter(slug="safety").values(
        "role", "protocols", "system_prompt", "model_name"
    )[0]


CELLS = [(op, role) for op in OPERATIONS for role in ROLES]


@pytest.fixture(scope="module")
def stored(django_db_setup, django_db_blocker):
    """The default agents, the world and one user per role, stored once for the module."""
    with stored_for_module(django_db_blocker):
        call_command("load_default_agents", stdout=open(os.devnull, "w"))
        world = World()
        yield world, {role: getattr(person(role), "pk", None) for role in ROLES}


@pytest.fixture
def world(stored, db) -> World:
    world = stored[0]
    world.item.refresh_from_db()  # as the cell finds it, whatever an earlier cell changed
    return world


@pytest.mark.parametrize(("operation", "role"), CELLS, ids=[f"{o} | {r}" for o, r in CELLS])
def test_role_matrix(operation, role, world, stored):
    how, method, path, body, expected = OPERATIONS[operation]
    pk = stored[1][role]
    user = None if pk is None else get_user_model().objects.get(pk=pk)  # no cached permissions
    safety_before = Agent.objects.get(slug="safety").can_veto
    veto_agent = _veto_agent()
    if "to ACT" in operation and user is not None:
        # Overriding a veto to ACT also needs the item claimed (tests/reviews/test_veto_override).
        ReviewItem.objects.filter(pk=world.item.pk).update(
            status=ReviewItem.Status.CLAIMED, assignee=user, claimed_at=timezone.now()
        )
    response = call(
        how,
        method,
        path.format(item=world.item.pk, debate=world.debate.pk, run=world.run.pk),
        body,
        user,
    )
    want = expected[role]
    assert response.status_code == want, (operation, role, response.content[:300])

    # What the user sees afterwards matches the answer: nothing changed when refused.
    world.item.refresh_from_db()
    debate = type(world.debate).objects.get(pk=world.debate.pk)
    allowed = want in (200, 201) or (how == "page" and want == 302 and user is not None)
    if "override" in operation:
        decision = body["decision"]
        assert (debate.decision_override == decision) is allowed
        if "to ACT" in operation:
            # The override takes effect, and a second Reviewer reviews the item too.
            assert (world.item.stage == ReviewItem.Stage.SECOND) is allowed
        else:
            assert (world.item.status == ReviewItem.Status.RESOLVED) is allowed
        assert debate.decision == "REFUSE"  # the machine's decision stays
    if "claim" in operation:
        assert world.item.assignee_id == (user.pk if allowed else None)
    if "veto" in operation and "agent" in operation and "veto agent" not in operation:
        assert Agent.objects.get(slug="safety").can_veto is (not allowed and safety_before)
    if "the veto agent" in operation:
        (field,) = body
        changed = _veto_agent()[field] != veto_agent[field]
        assert changed is allowed, (operation, role)
    if "start an evaluation run" in operation:
        assert EvaluationRun.objects.exists() is allowed
    if "create an agent" in operation:
        assert Agent.objects.filter(slug="cost").exists() is allowed
    if how == "page" and want == 302 and user is None:
        assert (
            response["Location"].startswith("/accounts/login/") or "login" in response["Location"]
        )
    if how == "api" and want == 403:
        assert "permission" in response.json()["detail"] or "role" in response.json()["detail"]
