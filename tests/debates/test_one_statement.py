"""One-statement writes: an insert's SQL is compiled once per shape, and the values of later
inserts of that shape are the ones Django's compiler would send."""

from __future__ import annotations

import pytest

from debates import one_statement, running, services
from debates.models import Challenge, LLMCall, Round, Statement, Vote


def _fresh(part_objs, **options):
    return one_statement._compile(
        type(part_objs[0]),
        one_statement.insert_fields(part_objs),
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
    one_statement._compiled.clear()
    first = services.debate_create(query="Is Bitcoin a good investment?", protocol=protocol)
    running.debate_run(debate_id=first.id)
    shapes = dict(one_statement._compiled)
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
        part = one_statement.insert("x", objs, **options)
        sql, params = _fresh(objs, **options)
        assert part.sql == sql
        assert one_statement._same(list(part.params), params)
    running.debate_run(debate_id=second.id)
    second.refresh_from_db()
    assert second.status == "completed", second.error
    assert dict(one_statement._compiled).keys() >= shapes.keys()


def _prepared(connection, like: str) -> dict[str, tuple[int, int]]:
    """The statements this connection prepared whose SQL starts with `like`: name ->
    (generic plans, custom plans) PostgreSQL made for it."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name, generic_plans, custom_plans FROM pg_prepared_statements "
            "WHERE statement LIKE %s",
            [like + "%"],
        )
        return {name: (generic, custom) for name, generic, custom in cursor.fetchall()}


STORE = 'WITH call0 AS (UPDATE "debates_llmcall"'
CLAIM = 'UPDATE "debates_debate" SET "status"'


@pytest.fixture
def connection_options():
    """Sets the options the next connection opens with (as settings would give them), and
    closes it after the test, so that later tests open one with the settings' own."""
    from django.db import connection

    own = connection.settings_dict["OPTIONS"]

    def use(**options):
        connection.close()
        connection.settings_dict["OPTIONS"] = {**own, **options}

    yield use
    connection.close()
    connection.settings_dict["OPTIONS"] = own


def _without_preparing() -> dict:
    """The connection options with DEBATE_PREPARED_STATEMENTS=false: Django's default."""
    return {"server_side_binding": None, "prepare_threshold": None}


def _run(query="Is Bitcoin a good investment?"):
    debate = services.debate_create(query=query, protocol="s4", enqueue=False)
    running.debate_run(debate_id=debate.id)
    debate.refresh_from_db()
    assert debate.status == "completed", debate.error
    return debate


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("prepared", [True, False])
def test_a_debate_is_stored_alike_with_or_without_prepared_statements(
    default_agents, settings, connection_options, prepared
):
    # Behind a pooler that keeps no prepared statements, DEBATE_PREPARED_STATEMENTS=false:
    # the connection then opens as Django's default (values quoted into the SQL, nothing
    # prepared), and so do the statements that store the replies.
    from django.db import connection

    settings.DEBATE_PREPARED_STATEMENTS = prepared
    if not prepared:
        connection_options(**_without_preparing())
    first, second = _run(), _run()
    for debate in (first, second):
        assert Statement.objects.filter(debate=debate).count() == 6
        assert Challenge.objects.filter(debate=debate).count() == 6
    stores, claims = _prepared(connection, STORE), _prepared(connection, CLAIM)
    if prepared:
        assert stores  # on their first run
        assert claims  # Django's own statements, from their second run on the connection
    else:
        assert not stores and not claims
    # The connection's own setting is left as it was.
    assert connection.connection.prepare_threshold == (1 if prepared else None)


def _plan_cache_mode(connection) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW plan_cache_mode")
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_a_run_plans_each_prepared_statement_once_and_gives_the_connection_back_as_it_was(
    default_agents, settings, connection_options
):
    # Left to PostgreSQL, a prepared statement is planned again with its values whenever the
    # generic plan looks dearer: every run, for the statements that store replies. While a
    # debate runs, its connection plans each one once; after it, the connection plans as it
    # did before, so that other work on it (the sweeper reads unfinished debates through a
    # partial index that only a plan for the given values can use) is planned as before.
    from django.db import connection

    settings.DEBATE_PREPARED_STATEMENTS = True
    connection_options(options="-c plan_cache_mode=force_custom_plan")
    assert _plan_cache_mode(connection) == "force_custom_plan"  # the connection's own
    for _ in range(3):
        _run()
    assert _plan_cache_mode(connection) == "force_custom_plan"
    plans = _prepared(connection, STORE) | _prepared(connection, CLAIM)
    assert plans
    assert all(custom == 0 and generic >= 1 for generic, custom in plans.values()), plans

    connection_options()  # PostgreSQL's default outside the runs
    _run()
    assert _plan_cache_mode(connection) == "auto"


@pytest.mark.django_db(transaction=True)
def test_without_preparing_a_run_leaves_the_plans_to_postgresql(
    default_agents, settings, connection_options
):
    from django.db import connection

    settings.DEBATE_PREPARED_STATEMENTS = False
    connection_options(**_without_preparing())
    _run()
    assert _plan_cache_mode(connection) == "auto"
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements")
        assert cursor.fetchone()[0] == 0


@pytest.mark.django_db(transaction=True)
def test_a_debate_another_runner_holds_leaves_the_connections_plans_as_they_were(
    default_agents, settings
):
    # The lock not taken: the statement that tried it set the plans; they are set back.
    from django.db import connection

    from runs import lifecycle as runs

    settings.DEBATE_PREPARED_STATEMENTS = True
    debate = services.debate_create(query="Is it safe?", protocol="s4", enqueue=False)
    other = connection.copy()
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", [str(debate.id)])
        with runs.advisory_lock(str(debate.id), generic_plans=True) as acquired:
            assert not acquired
            assert _plan_cache_mode(connection) == "auto"
        assert running.debate_run(debate_id=debate.id) is None
        assert _plan_cache_mode(connection) == "auto"
    finally:
        other.close()


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
    one_statement._converted.cache_clear()
    first = one_statement.execute([], select, params)
    second = one_statement.execute([], select, [p + 1 for p in params])
    assert first[0][:40] == tuple(params) and second[0][:40] == tuple(p + 1 for p in params)
    assert first[0][-1] == "100%"
    info = one_statement._converted.cache_info()
    assert (info.misses, info.hits) == (1, 1)
    connection.ensure_connection()
    ours, theirs = (
        cls(Transformer(connection.connection))
        for cls in (one_statement._ShapeQuery, PostgresQuery)
    )
    ours.convert(select, params)
    theirs.convert(select, params)
    assert (ours.query, ours.params, ours.types) == (theirs.query, theirs.params, theirs.types)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("prepared", [True, False])
def test_a_statement_refused_by_its_check_keeps_none_of_its_writes(settings, prepared):
    # Two writes (to two rows) and a check that reads one of them: when the check fails,
    # neither write is kept (the statement is undone whole, with no transaction block), and
    # the message says why; when it holds, both are.
    from django.db import connection

    from agents.models import Agent

    settings.DEBATE_PREPARED_STATEMENTS = prepared
    one, other = (
        Agent.objects.create(name=name, slug=name.lower(), role="safety", system_prompt="x")
        for name in ("One", "Other")
    )

    def statement(expected_name: str):
        renamed = one_statement.update("a", Agent, one.pk, {"name": "Renamed"}, returning="name")
        asked = one_statement.update("b", Agent, other.pk, {"guiding_question": "Asked?"})
        check, params = one_statement.refuse_unless(
            "(SELECT name FROM a) = %s", "the agent was not renamed as asked"
        )
        return one_statement.execute([renamed, asked], f"SELECT {check}", [expected_name, *params])

    def stored():
        one.refresh_from_db()
        other.refresh_from_db()
        return one.name, other.guiding_question

    before = stored()
    with pytest.raises(one_statement.Refused, match="the agent was not renamed as asked"):
        statement("Something else")
    assert connection.connection.info.transaction_status == 0  # idle: nothing left open
    assert stored() == before

    assert statement("Renamed") == [(True,)]
    assert stored() == ("Renamed", "Asked?")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_refusing_function_comes_and_goes_with_its_migration():
    from django.core.management import call_command
    from django.db import connection

    def exists() -> bool:
        with connection.cursor() as cursor:
            cursor.execute("SELECT to_regprocedure('onetrip_refuse(text)') IS NOT NULL")
            return cursor.fetchone()[0]

    assert exists()
    try:
        call_command("migrate", "debates", "0017", verbosity=0)
        assert not exists()
    finally:
        # All apps: going back also undid the migrations that depend on these (evaluation's).
        call_command("migrate", verbosity=0)
    assert exists()
