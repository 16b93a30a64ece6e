"""The database's functions, kept in `.sql` files: `<app>/sql/<function>.sql`, one file per
function, holding its one current definition (a `CREATE OR REPLACE FUNCTION` statement, after
comments that say what it does). The file, not a migration, is where a function is read and
changed.

A migration puts a file's definition in the database with `create_or_replace(app, function,
version=...)`; `version` is the file's `version_of()` when the migration was written. A change to
a `.sql` file therefore needs a new migration that loads it again, naming the new version:

    operations = [create_or_replace("budgets", "budgets_reserve_many", version="<new>")]

A migration whose version is no longer the file's does nothing (the definition it was written
for is gone; the newest migration puts the file's in place), so a database built from scratch
and one migrated all along end with the same definition. Without the new migration, neither
gets the change, and `tests/audit/test_sql_functions.py` fails: it compares every file with the
function in the test database, and prints the version to name. A change of a function's
arguments or of what it returns needs a `DROP FUNCTION` of the old one first, in the same new
migration (CREATE OR REPLACE would refuse it, or make a second function beside it). Reversing a
load leaves the function as it is. On a database built from scratch, a function whose first
definition is a file's exists only from the migration naming the file's current version on: a
migration before that one which needs it (a trigger calling it) fails there, in the tests.

In `audit`, the lowest layer, so that every app's migrations may import it; it has nothing to
do with audit entries."""

from __future__ import annotations

import hashlib
from pathlib import Path

from django.apps import apps
from django.db import migrations


def sql_files() -> list[Path]:
    """Every function's file, of every installed app."""
    return [
        path
        for config in apps.get_app_configs()
        for path in sorted(Path(config.path, "sql").glob("*.sql"))
    ]


def version_of(definition: str) -> str:
    """A file's version: what changes when its text does (whitespace aside)."""
    return hashlib.sha256(" ".join(definition.split()).encode()).hexdigest()[:12]


def create_or_replace(app_label: str, function: str, *, version: str) -> migrations.RunSQL:
    """The migration operation that defines `function` as `<app>/sql/<function>.sql` does,
    if the file is still at `version`; otherwise one that does nothing."""
    definition = Path(apps.get_app_config(app_label).path, "sql", f"{function}.sql").read_text()
    if version_of(definition) != version:
        return migrations.RunSQL(migrations.RunSQL.noop, migrations.RunSQL.noop)
    return migrations.RunSQL(definition, migrations.RunSQL.noop)
