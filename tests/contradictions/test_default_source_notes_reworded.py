"""The default sources' notes reworded by
`contradictions.0009_default_source_notes_without_references`, unless an analyst edited them;
undone, they are as they were."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from contradictions.models import SourceAuthority

# Migrates the database back and forth.
pytestmark = pytest.mark.slow

FORMER = "Regional statistical authority for the Gulf states (seed 002)."


@pytest.fixture
def migrated_back(transactional_db):
    """The database before the rewording; migrated forward again after the test."""
    call_command("migrate", "contradictions", "0008", verbosity=0)
    try:
        yield
    finally:
        call_command("migrate", verbosity=0)


def test_default_source_notes_are_reworded_unless_an_analyst_edited_them(migrated_back):
    edited = "Quarterly labour force survey."
    SourceAuthority.objects.create(name="GCC-STAT", rank=1, note=FORMER)
    SourceAuthority.objects.create(name="World Bank", rank=2, note=edited)

    call_command("migrate", "contradictions", verbosity=0)
    assert dict(SourceAuthority.objects.values_list("name", "note")) == {
        "GCC-STAT": "Regional statistical authority for the Gulf states.",
        "World Bank": edited,
    }

    call_command("migrate", "contradictions", "0008", verbosity=0)
    assert SourceAuthority.objects.get(name="GCC-STAT").note == FORMER
