"""One-statement writes: an insert's SQL is compiled once per shape, and the values of later
inserts of that shape are the ones Django's compiler would send."""

from __future__ import annotations

import pytest

from debates import onetrip, services
from debates.models import Challenge, LLMCall, Round, Statement, Vote


def _fresh(part_objs, **options):
    return onetrip._compile(
        type(part_objs[0]),
        onetrip.insert_fields(part_objs),
        part_objs,
        tuple(options.get("returning", ("id",))),
        tuple(options.get("unique_fields", ())),
        tuple(options.get("update_fields", ())),
        options.get("update_where", ""),
        ignore_conflicts=options.get("ignore_conflicts", False),
    )


@pytest.mark.parametrize("protocol", ["s4", "vote", "moderated", "round_robin"])
def test_every_insert_a_run_makes_is_compiled_once_and_sends_the_compilers_values(
    default_agents, protocol
):
    onetrip._compiled.clear()
    first = services.debate_create(query="Is Bitcoin a good investment?", protocol=protocol)
    services.debate_run(debate_id=first.id)
    shapes = dict(onetrip._compiled)
    assert {key[0] for key in shapes} >= {Round, LLMCall, Statement} | (
        {Challenge} if protocol == "s4" else set()
    )
    # A second run reuses every shape; what it sends is what the compiler would send.
    second = services.debate_create(query="Should I learn Python or Go?", protocol=protocol)
    debate = second
    rows = [
        ([Round(debate=debate, number=9, name="Extra")], {"returning": ("id", "status")}),
        (
            [
                Vote(
                    debate=debate,
                    participant=p,
                    decision="ACT",
                    confidence=70,
                    risk=10,
                    reasoning=f"because {i}",
                )
                for i, p in enumerate(debate.participants.all()[:3])
            ],
            {"ignore_conflicts": True},
        ),
    ]
    for objs, options in rows:
        part = onetrip.insert("x", objs, **options)
        sql, params = _fresh(objs, **options)
        assert part.sql == sql
        assert onetrip._same(list(part.params), params)
    services.debate_run(debate_id=second.id)
    second.refresh_from_db()
    assert second.status == "completed", second.error
    assert dict(onetrip._compiled).keys() >= shapes.keys()


def _prepared_stores(connection) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name FROM pg_prepared_statements WHERE statement LIKE %s",
            ['WITH call0 AS (UPDATE "debates_llmcall"%'],
        )
        return {name for (name,) in cursor.fetchall()}


@pytest.mark.parametrize("prepared", [True, False])
def test_a_debate_is_stored_alike_with_or_without_prepared_statements(
    default_agents, settings, prepared
):
    # Behind a pooler that keeps no prepared statements, DEBATE_PREPARED_STATEMENTS=false.
    from django.db import connection

    settings.DEBATE_PREPARED_STATEMENTS = prepared
    debate = services.debate_create(query="Is Bitcoin a good investment?", protocol="s4")
    before = _prepared_stores(connection)
    services.debate_run(debate_id=debate.id)
    debate.refresh_from_db()
    assert debate.status == "completed", debate.error
    assert Statement.objects.filter(debate=debate).count() == 6
    assert Challenge.objects.filter(debate=debate).count() == 6
    after = _prepared_stores(connection)
    if prepared:
        assert after
    else:
        assert after == before
    # The connection's own setting is left as it was (Django's default: no preparing).
    assert connection.connection.prepare_threshold is None


def _plan_cache_mode(connection) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW plan_cache_mode")
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("prepared", [True, False])
def test_a_connection_that_prepares_plans_each_statement_once(default_agents, settings, prepared):
    # Left to PostgreSQL, a prepared statement is planned again with its values whenever the
    # generic plan looks dearer: every run, for these statements. A connection that prepares
    # them plans each once; one that does not (behind a pooler) keeps PostgreSQL's default.
    from django.db import connection

    connection.close()
    settings.DEBATE_PREPARED_STATEMENTS = prepared
    debate = services.debate_create(
        query="Is Bitcoin a good investment?", protocol="s4", enqueue=False
    )  # committed (a transaction test): run here, not by the session's worker
    services.debate_run(debate_id=debate.id)
    debate.refresh_from_db()
    assert debate.status == "completed", debate.error
    assert _plan_cache_mode(connection) == ("force_generic_plan" if prepared else "auto")
    connection.close()
    assert _plan_cache_mode(connection) == "auto"  # a new connection starts with the default


@pytest.mark.django_db
def test_a_long_statement_is_parsed_once_per_shape_as_psycopg_parses_it():
    # psycopg parses a statement over 4096 characters on every run; the statements here are
    # that long, so each shape is parsed once per process, to the same query and values.
    from django.db import connection
    from psycopg._queries import PostgresQuery
    from psycopg.adapt import Transformer

    padding = ", ".join(f"%s AS c{i}" for i in range(40))
    select = f"SELECT {padding}, '{'x' * 4000}' AS pad, '100%%' AS pct"
    params = list(range(40))
    assert len(select) > 4096
    onetrip._converted.cache_clear()
    first = onetrip.execute([], select, params)
    second = onetrip.execute([], select, [p + 1 for p in params])
    assert first[0][:40] == tuple(params) and second[0][:40] == tuple(p + 1 for p in params)
    assert first[0][-1] == "100%"
    info = onetrip._converted.cache_info()
    assert (info.misses, info.hits) == (1, 1)
    connection.ensure_connection()
    ours, theirs = (
        cls(Transformer(connection.connection)) for cls in (onetrip._ShapeQuery, PostgresQuery)
    )
    ours.convert(select, params)
    theirs.convert(select, params)
    assert (ours.query, ours.params, ours.types) == (theirs.query, theirs.params, theirs.types)
