"""Stored `auto` choices reworded by `debates.0023_protocol_choice_reasons_without_references`:
they read as the code now writes them; undone, they are as they were."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from protocols.selection import choose_protocol

# Migrates the database back and forth.
pytestmark = pytest.mark.slow

FORMER_CHOICE = {
    "requested": "auto",
    "chosen": "round_robin",
    "reason": "matched seed 004 keyword 'advice'",
    "matched_keywords": ["invest", "advice"],
    "matches": [
        {
            "keyword": "invest",
            "text": "invest",
            "seed_keyword": None,
            "widening": "a widening of seed 004's keyword 'investment' to its stem",
        },
        {"keyword": "advice", "text": "advice", "seed_keyword": "advice", "widening": None},
    ],
}


BEFORE = ("debates", "0022_help_texts_without_external_references")
AFTER = ("debates", "0023_protocol_choice_reasons_without_references")


def historical_debate(target):
    return (
        MigrationExecutor(connection)
        .loader.project_state(target)
        .apps.get_model("debates", "Debate")
    )


@pytest.fixture
def migrated_back(transactional_db):
    """The database before the rewording; migrated forward again after the test."""
    call_command("migrate", *BEFORE, verbosity=0)
    try:
        yield historical_debate(BEFORE)
    finally:
        call_command("migrate", verbosity=0)


def test_stored_auto_choices_read_as_the_code_now_writes_them_and_back(migrated_back):
    Debate = migrated_back  # noqa: N806 - the model as it was before the rewording
    old = Debate.objects.create(
        query="Should I invest? I want your advice.",
        protocol="round_robin",
        metadata={"protocol_choice": FORMER_CHOICE, "kept": 1},
    )
    untouched = Debate.objects.create(query="What is 2 + 2?", protocol="s4", metadata={"x": 1})

    call_command("migrate", *AFTER, verbosity=0)
    old.refresh_from_db()
    assert old.metadata == {
        "protocol_choice": choose_protocol("Should I invest? I want your advice.").as_dict(),
        "kept": 1,
    }
    untouched.refresh_from_db()
    assert untouched.metadata == {"x": 1}

    call_command("migrate", *BEFORE, verbosity=0)
    old.refresh_from_db()
    assert old.metadata == {"protocol_choice": FORMER_CHOICE, "kept": 1}
