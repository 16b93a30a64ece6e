"""No plain index on the debate tables repeats the leading columns of another one: every write
pays for each index, so one that another index already covers only costs."""

from __future__ import annotations

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db

TABLES = [
    "debates_debate",
    "debates_participant",
    "debates_round",
    "debates_llmcall",
    "debates_statement",
    "debates_challenge",
    "debates_vote",
]


def btree_indexes(table: str) -> list[tuple[str, bool, list[str]]]:
    """(name, unique, keys) of each plain btree index on `table`; a key is its column, with
    its operator class when it is not the default one. Expression and partial indexes are left
    out: their keys are not the columns'."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT i.relname, x.indisunique,
                   array_agg(a.attname || CASE WHEN op.opcdefault THEN '' ELSE ' ' || op.opcname
                                        END ORDER BY k.n),
                   bool_or(k.attnum = 0) OR x.indpred IS NOT NULL
            FROM pg_index x
            JOIN pg_class t ON t.oid = x.indrelid
            JOIN pg_class i ON i.oid = x.indexrelid
            JOIN pg_am am ON am.oid = i.relam AND am.amname = 'btree'
            CROSS JOIN LATERAL unnest(x.indkey::int2[], x.indclass::oid[])
                 WITH ORDINALITY AS k(attnum, opclass, n)
            LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
            JOIN pg_opclass op ON op.oid = k.opclass
            WHERE t.relname = %s
            GROUP BY i.relname, x.indisunique, x.indpred
            """,
            [table],
        )
        return [
            (name, unique, keys) for name, unique, keys, other in cursor.fetchall() if not other
        ]


@pytest.mark.parametrize("table", TABLES)
def test_no_plain_index_repeats_the_leading_columns_of_another(table):
    indexes = btree_indexes(table)
    assert indexes, f"no btree index found on {table}"
    covered = [
        (name, columns, other)
        for name, unique, columns in indexes
        if not unique
        for other, _, other_columns in indexes
        if other != name and other_columns[: len(columns)] == columns
    ]
    assert covered == [], f"indexes another index already covers on {table}: {covered}"


def test_a_pattern_index_exists_only_where_a_prefix_search_needs_it():
    """`varchar_pattern_ops` indexes serve `LIKE 'x%'`; the debate tables search no column by
    prefix (the question's search has its trigram index)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = ANY(%s) "
            "AND indexdef LIKE '%%pattern_ops%%'",
            [TABLES],
        )
        found = sorted(name for (name,) in cursor.fetchall())
    # outcome_change is filtered alone (its field's index comes with one).
    assert found == ["debates_debate_outcome_change_0b2a5f2f_like"]
