"""The data migration that makes one active item of a debate's outcome: existing duplicates
(one open item per reason, as the queue used to open them) become one item with every reason."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.db import connection

from reviews.models import ReviewEvent, ReviewItem
from tests.reviews.conftest import completed_debate

migration = importlib.import_module("reviews.migrations.0006_friction_one_item_many_reasons")


@pytest.fixture
def without_the_new_constraint(db):
    """The table as it was before: several active items per debate allowed (the test's
    transaction puts the constraint back)."""
    with connection.cursor() as cursor:
        # a partial unique constraint is a unique index in PostgreSQL
        cursor.execute("DROP INDEX reviewitem_one_active_outcome_per_debate")


def test_a_debates_open_items_are_merged_into_the_claimed_one(without_the_new_constraint, staff):
    debate = completed_debate("Split and unsure?")
    other = completed_debate("Only a veto?")
    split = ReviewItem.objects.create(
        debate=debate, reason="split_vote", priority=54, summary="Split vote: 1 ACT, 1 WARN"
    )
    low = ReviewItem.objects.create(
        debate=debate,
        reason="low_confidence",
        priority=34,
        summary="Average confidence 55 is below 60",
        status="claimed",
        assignee=staff,
        details={"avg_confidence": 55},
    )
    failed = ReviewItem.objects.create(debate=debate, reason="debate_failed", priority=70)
    veto = ReviewItem.objects.create(debate=other, reason="safety_veto", priority=89)
    ReviewItem.objects.filter(pk__in=[split.pk, low.pk, failed.pk, veto.pk]).update(reasons=[])

    with connection.schema_editor() as editor:
        migration.one_item_per_debate(apps, editor)

    low.refresh_from_db()
    split.refresh_from_db()
    # the claimed item keeps its analyst and now lists both reasons, most urgent first
    assert (low.status, low.assignee, low.reason) == ("claimed", staff, "split_vote")
    assert (low.reasons, low.priority) == (["split_vote", "low_confidence"], 54)
    assert low.summary == "Split vote: 1 ACT, 1 WARN · Average confidence 55 is below 60"
    assert low.details["by_reason"]["low_confidence"] == {"avg_confidence": 55}
    assert (split.status, split.note) == (
        "dismissed",
        f"Merged into review item #{low.pk}: one item per debate lists every reason.",
    )
    event = ReviewEvent.objects.get(item=split)
    assert (event.action, event.data) == ("dismissed", {"merged_into": low.pk})
    # a failure stays an item of its own; a single item only gains its `reasons`
    assert ReviewItem.objects.get(pk=failed.pk).reasons == ["debate_failed"]
    assert ReviewItem.objects.get(pk=veto.pk).reasons == ["safety_veto"]
    assert ReviewItem.objects.filter(debate=debate, status__in=ReviewItem.ACTIVE).count() == 2
