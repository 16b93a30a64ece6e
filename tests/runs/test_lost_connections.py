"""A worker thread's database connection that is gone is closed before its next task (and
after a failure), so the next use connects again; one that is fine is kept, at no round trip."""

from __future__ import annotations

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from debates.models import Debate
from runs import lifecycle

pytestmark = pytest.mark.django_db(transaction=True)


def _end_own_session() -> None:
    """End this connection's session from another one, as a PostgreSQL restart would."""
    pid = connection.connection.info.backend_pid
    db = settings.DATABASES["default"]
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    with psycopg.connect(url, autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
        while other.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone():
            pass


def test_a_connection_that_is_fine_is_kept():
    Debate.objects.count()
    held = connection.connection
    assert lifecycle.drop_lost_connections() == []
    assert connection.connection is held
    assert lifecycle.connection_lost() is False


def test_a_connection_whose_session_ended_is_closed_and_the_next_query_connects_again():
    Debate.objects.count()
    held = connection.connection
    _end_own_session()

    assert lifecycle.drop_lost_connections() == ["default"]
    assert connection.connection is None
    assert Debate.objects.count() == 0  # connects again
    assert connection.connection is not held


def test_a_connection_closed_underneath_is_dropped_too():
    Debate.objects.count()
    connection.connection.close()  # the driver's connection, behind Django's back

    assert lifecycle.drop_lost_connections() == ["default"]
    assert Debate.objects.count() == 0


def test_after_a_failed_statement_a_usable_connection_is_kept_and_a_lost_one_reported():
    from django.db import OperationalError

    Debate.objects.count()
    held = connection.connection
    with pytest.raises(OperationalError), connection.cursor() as cursor:
        cursor.execute("SET LOCAL statement_timeout = 1; SELECT pg_sleep(1)")
    assert connection.errors_occurred
    # A statement failed, the connection did not: the error is the statement's.
    assert lifecycle.connection_lost() is False
    assert connection.connection is held and not connection.errors_occurred

    _end_own_session()
    with pytest.raises(OperationalError):
        Debate.objects.count()
    assert lifecycle.connection_lost() is True
    assert connection.connection is None


@pytest.mark.parametrize(
    "task, service",
    [
        ("debates.tasks.run_debate", "debates.running.debate_run"),
        (
            "contradictions.tasks.run_contradictions",
            "contradictions.running.contradiction_run_execute",
        ),
    ],
)
def test_a_run_that_lost_its_database_retries_and_keeps_the_models_retries(
    monkeypatch, task, service
):
    from django.db import OperationalError
    from django.utils.module_loading import import_string

    from runs import retrying

    asked = []

    def execute(*, may_retry, **ids):
        asked.append(may_retry)
        if len(asked) <= settings.DEBATE_TASK_MAX_RETRIES + 2:  # more losses than model retries
            raise OperationalError("server closed the connection unexpectedly")
        return None

    monkeypatch.setattr(service, execute)
    monkeypatch.setattr(retrying.lifecycle, "connection_lost", lambda: True)
    monkeypatch.setattr(retrying, "retry_delay", lambda retry: 0)

    assert import_string(task).apply(args=("a-run",)).get() == "skipped"
    # Retried for as long as the database was lost, each time still allowed the model's retries.
    assert asked == [True] * (settings.DEBATE_TASK_MAX_RETRIES + 3)


def test_a_statement_that_failed_on_a_working_connection_is_not_retried(monkeypatch):
    from django.db import OperationalError

    from debates import tasks

    def debate_run(*, debate_id, may_retry, read_back):
        raise OperationalError("canceling statement due to statement timeout")

    monkeypatch.setattr(tasks.running, "debate_run", debate_run)
    monkeypatch.setattr(lifecycle, "connection_lost", lambda: False)

    result = tasks.run_debate.apply(args=("a-debate",))
    assert result.failed() and isinstance(result.result, OperationalError)
