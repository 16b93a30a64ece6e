"""How a debate's calls are stored: the prompt and the reply compressed with lz4 (migration
0017) when PostgreSQL compresses them, and the migration undone brings pglz back."""

from __future__ import annotations

from importlib import import_module

import pytest
from django.db import connection

from debates import running, services
from debates.models import LLMCall

LZ4 = import_module("debates.migrations.0017_llmcall_lz4_compression")


def _compression() -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attname, attcompression FROM pg_attribute "
            "WHERE attrelid = 'debates_llmcall'::regclass AND attname = ANY(%s)",
            [list(LZ4.COLUMNS)],
        )
        return dict(cursor.fetchall())


def test_the_prompt_and_the_reply_are_compressed_with_lz4(db):
    assert _compression() == dict.fromkeys(LZ4.COLUMNS, "l")


def test_a_long_prompt_is_stored_compressed_with_lz4(default_agents):
    debate = services.debate_create(query="Is Bitcoin a good investment?", enqueue=False)
    running.debate_run(debate_id=debate.id)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT key, pg_column_compression(prompt), pg_column_size(prompt), "
            "octet_length(prompt::text) FROM debates_llmcall WHERE debate_id = %s",
            [debate.id],
        )
        rows = cursor.fetchall()
    assert len(rows) == LLMCall.objects.filter(debate=debate).count() == 12
    compressed = [(key, size, length) for key, method, size, length in rows if method]
    # The revisions' prompts carry the round before: long enough to be compressed, with lz4.
    assert {key for key, *_ in compressed} >= {k for k, *_ in rows if k.startswith("r3:")}
    assert {method for _, method, *_ in rows if method} == {"lz4"}
    assert all(size < length for _, size, length in compressed)


@pytest.mark.django_db(transaction=True)
def test_undoing_the_migration_brings_pglz_back():
    with connection.cursor() as cursor:
        cursor.execute(LZ4.Migration.operations[0].reverse_sql)
        assert _compression() == dict.fromkeys(LZ4.COLUMNS, "")
        cursor.execute(LZ4.Migration.operations[0].sql)
    assert _compression() == dict.fromkeys(LZ4.COLUMNS, "l")
