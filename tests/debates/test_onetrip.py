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
