"""The database's functions and their `.sql` files (`audit.sql_functions`): each file defines
its function as the migrated database does (whitespace aside), so a file changed without a
migration that loads it again fails here; every function of the project's has its file; a
migration written for another version of a file leaves the database alone."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest
from django.db import connection

from audit.sql_functions import create_or_replace, sql_files, version_of
from tests.conftest import ROOT

pytestmark = pytest.mark.django_db

# Where a file's definition is made, to be compared with the function the migrations made.
SCRATCH = "sql_file_check"


def _functions(cursor, schema: str) -> dict[str, list[str]]:
    """The definitions of the functions in `schema`, by name, without the schema's name and
    with whitespace collapsed; extensions' functions left out."""
    cursor.execute(
        "SELECT p.proname, pg_get_functiondef(p.oid) FROM pg_proc p "
        "JOIN pg_namespace n ON n.oid = p.pronamespace "
        "WHERE n.nspname = %s AND NOT EXISTS (SELECT 1 FROM pg_depend d "
        "WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e') "
        "ORDER BY p.proname, p.oid",
        [schema],
    )
    found: dict[str, list[str]] = {}
    for name, definition in cursor.fetchall():
        definition = definition.replace(f"FUNCTION {schema}.{name}(", f"FUNCTION {name}(", 1)
        found.setdefault(name, []).append(" ".join(definition.split()))
    return found


def _schema(cursor) -> str:
    cursor.execute("SELECT current_schema()")
    return cursor.fetchone()[0]


@pytest.mark.parametrize("path", sql_files(), ids=lambda path: path.stem)
def test_the_database_defines_each_function_as_its_sql_file_does(path: Path):
    with connection.cursor() as cursor:
        schema = _schema(cursor)
        in_database = _functions(cursor, schema).get(path.stem, [])
        # Made again from the file beside the migrated ones (undone with the test's transaction).
        cursor.execute(f"CREATE SCHEMA {SCRATCH}")
        cursor.execute(f"SET LOCAL search_path TO {SCRATCH}, {schema}")
        cursor.execute(path.read_text())
        from_file = _functions(cursor, SCRATCH)

    assert list(from_file) == [path.stem], "one function a file, named after it"
    assert in_database == from_file[path.stem], (
        f"{path.stem} in the database is not the one {path.name} defines: a change to the file "
        "needs a new migration that loads it (see audit.sql_functions): "
        f'create_or_replace("{path.parent.parent.name}", "{path.stem}", '
        f'version="{version_of(path.read_text())}")'
    )


@pytest.mark.slow
def test_a_new_database_migrates_from_scratch_to_the_files_definitions():
    """The test database is kept between runs (`--reuse-db`), so it has been migrated all
    along; a new installation runs every migration on an empty database, where a migration that
    loads a function before the one it calls fails (a SQL function's body is checked when it is
    made). Here a database is made empty, migrated as `manage.py migrate` does, and each of its
    functions compared with its file."""
    params = connection.get_connection_params()
    server = {k: params[k] for k in ("host", "port", "user") if params.get(k)}
    name = f"test_from_scratch_{uuid.uuid4().hex[:8]}"
    url = f"postgres://{server['user']}@{server['host']}:{server.get('port', 5432)}/{name}"
    with psycopg.connect(**server, dbname="postgres", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        result = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--no-input"],
            cwd=ROOT,
            env={**os.environ, "DATABASE_URL": url},
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr[-3000:]
        with psycopg.connect(url) as fresh, fresh.cursor() as cursor:
            in_new = _functions(cursor, "public")
        with connection.cursor() as cursor:
            in_kept = _functions(cursor, _schema(cursor))
        assert sorted(in_new) == sorted(path.stem for path in sql_files())
        assert in_new == in_kept
    finally:
        with psycopg.connect(**server, dbname="postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_every_function_of_the_database_has_its_sql_file():
    with connection.cursor() as cursor:
        in_database = sorted(_functions(cursor, _schema(cursor)))

    assert in_database == sorted(path.stem for path in sql_files())
    assert {"budgets_reserve_many", "onetrip_refuse", "audit_entry_append_only"} <= set(in_database)


def test_a_migration_loads_a_file_only_at_the_version_it_names():
    (path,) = [path for path in sql_files() if path.stem == "onetrip_refuse"]
    current = version_of(path.read_text())

    loading = create_or_replace("debates", "onetrip_refuse", version=current)
    outdated = create_or_replace("debates", "onetrip_refuse", version="0" * 12)

    assert loading.sql == path.read_text()
    assert outdated.sql == outdated.reverse_sql == ""
    assert version_of(path.read_text().replace("\n", "\n\n  ")) == current
    assert version_of(path.read_text().replace("OT001", "OT002")) != current
