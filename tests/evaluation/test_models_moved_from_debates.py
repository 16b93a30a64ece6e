"""Evaluation runs moved from the debates app to evaluation (migrations
`debates.0021_evaluation_runs_to_the_evaluation_app` and
`evaluation.0001_evaluation_runs_from_debates`): a database migrated across the move keeps its
runs, their items, and the roles' permission to read them; undone, it is as it was."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from evaluation.models import EvaluationItem, EvaluationRun

# Each test migrates the database back and forth.
pytestmark = pytest.mark.slow

BEFORE = ("debates", "0020_protocol_default_from_setting")


def migrate_to_before_the_move():
    call_command("migrate", *BEFORE, verbosity=0)
    return MigrationExecutor(connection).loader.project_state(BEFORE).apps


def content_types() -> list[tuple[int, str, str]]:
    return list(
        ContentType.objects.filter(model__in=["evaluationrun", "evaluationitem"])
        .order_by("model")
        .values_list("id", "app_label", "model")
    )


@pytest.fixture
def before_the_move(transactional_db):
    """Historical models of the database as it was before the move; migrated forward after."""
    try:
        yield migrate_to_before_the_move()
    finally:
        call_command("migrate", verbosity=0)
        ContentType.objects.clear_cache()


def test_runs_items_and_the_roles_grants_survive_the_move(before_the_move):
    old = before_the_move
    run = old.get_model("debates", "EvaluationRun").objects.create(
        set_name="labelled.jsonl", set_sha256="a" * 64, protocol="s4", status="completed"
    )
    old.get_model("debates", "EvaluationItem").objects.create(
        run=run, line=3, question="Is the sky blue?", expected="ACT", category="facts"
    )
    ContentTypeBefore = old.get_model("contenttypes", "ContentType")
    Permission = old.get_model("auth", "Permission")
    view = Permission.objects.get(
        content_type=ContentTypeBefore.objects.get(app_label="debates", model="evaluationrun"),
        codename="view_evaluationrun",
    )
    group = old.get_model("auth", "Group").objects.create(name="Evaluators")
    group.permissions.add(view)
    user = old.get_model("auth", "User").objects.create(username="eve", is_staff=True)
    user.groups.add(group)
    type_ids = sorted(
        ContentTypeBefore.objects.filter(
            app_label="debates", model__in=["evaluationrun", "evaluationitem"]
        ).values_list("id", flat=True)
    )

    call_command("migrate", verbosity=0)
    ContentType.objects.clear_cache()

    moved = EvaluationRun.objects.get(id=run.id)
    assert (moved.set_name, moved.status) == ("labelled.jsonl", EvaluationRun.Status.COMPLETED)
    item = EvaluationItem.objects.get(run=moved)
    assert (item.line, item.question, item.expected) == (3, "Is the sky blue?", "ACT")
    # The same content type rows, relabelled: the permission and its grant are the same rows.
    assert sorted(i for i, _, _ in content_types()) == type_ids
    assert {label for _, label, _ in content_types()} == {"evaluation"}
    assert ContentType.objects.get_for_model(EvaluationRun).id in type_ids
    eve = get_user_model().objects.get(username="eve")
    assert eve.has_perm("evaluation.view_evaluationrun")
    assert not eve.has_perm("debates.view_evaluationrun")
    assert list(eve.groups.get().permissions.values_list("id", flat=True)) == [view.id]

    # Undone, the content types are the debates app's again, the permission with them.
    migrate_to_before_the_move()
    assert {label for _, label, _ in content_types()} == {"debates"}
    assert get_user_model().objects.get(username="eve").has_perm("debates.view_evaluationrun")


def test_a_content_type_made_for_evaluation_in_between_is_folded_into_the_kept_one(
    before_the_move,
):
    # The old row holds the group's grant; a row for the new label, made before the move ran
    # (say by a lookup), holds a user's grant of its own permission.
    old = before_the_move
    ContentTypeBefore = old.get_model("contenttypes", "ContentType")
    Permission = old.get_model("auth", "Permission")
    kept = ContentTypeBefore.objects.get(app_label="debates", model="evaluationrun")
    made = ContentTypeBefore.objects.create(app_label="evaluation", model="evaluationrun")
    view = Permission.objects.get(content_type=kept, codename="view_evaluationrun")
    group = old.get_model("auth", "Group").objects.create(name="Evaluators")
    group.permissions.add(view)
    also = Permission.objects.create(
        content_type=made, codename="view_evaluationrun", name="Can view evaluation run"
    )
    user = old.get_model("auth", "User").objects.create(username="ida", is_staff=True)
    user.user_permissions.add(also)

    call_command("migrate", verbosity=0)
    ContentType.objects.clear_cache()

    assert ContentType.objects.get_for_model(EvaluationRun).id == kept.id
    assert not ContentType.objects.filter(id=made.id).exists()
    ida = get_user_model().objects.get(username="ida")
    assert ida.has_perm("evaluation.view_evaluationrun")
    assert list(ida.user_permissions.values_list("id", flat=True)) == [view.id]
    evaluators = Group.objects.get(name="Evaluators")
    assert list(evaluators.permissions.values_list("id", flat=True)) == [view.id]
