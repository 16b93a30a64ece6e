"""Starting a run from the evaluation page (Operators only, sent to the workers, never run in
the request), the task that drives it, and the page comparing two runs."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from accounts.roles import OPERATOR, REVIEWER
from audit.models import AuditEntry
from debates.models import Debate
from evaluation import driving, tasks
from evaluation.models import EvaluationItem, EvaluationRun
from tests.evaluation.pages import Q, client_as, make_run
from tests.factories import UserFactory, with_roles

pytestmark = pytest.mark.django_db

FORM = {"set": "decisions_v1", "protocol": "s4", "model": "", "baselines": "on"}
SHIPPED_QUESTIONS = 62


@pytest.fixture
def sent(monkeypatch):
    """The run ids sent to the workers (the task's messages), instead of sending them."""
    found = []
    monkeypatch.setattr(tasks.advance_run, "delay", lambda run_id: found.append(run_id))
    return found


def test_an_operator_starts_a_run_whose_first_step_is_sent_to_the_workers(
    sent, django_capture_on_commit_callbacks
):
    client = client_as(OPERATOR)
    assert 'action="/evaluation/start/"' in client.get("/evaluation/").text
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/evaluation/start/", FORM)
    run = EvaluationRun.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/evaluation/{run.id}/"
    assert (run.set_name, run.protocol, run.with_baselines, run.status) == (
        "decisions_v1.jsonl",
        "s4",
        True,
        EvaluationRun.Status.RUNNING,
    )
    assert run.items.count() == SHIPPED_QUESTIONS
    assert sent == [str(run.id)]
    assert not Debate.objects.exists()  # nothing is asked in the request
    entry = AuditEntry.objects.get(action="evaluation.start")
    assert entry.subject_id == str(run.id) and "decisions_v1 through s4" in entry.note


@pytest.mark.parametrize("role", [REVIEWER, "staff", "user"])
def test_only_an_operator_may_start_a_run(role, sent):
    response = client_as(role).post("/evaluation/start/", FORM)
    assert response.status_code == 403
    assert not EvaluationRun.objects.exists() and sent == []


def test_anonymous_users_are_sent_to_log_in_and_nothing_starts(sent):
    response = client_as(None).post("/evaluation/start/", FORM)
    assert response.status_code == 302 and "/evaluation/" in response["Location"]
    assert not EvaluationRun.objects.exists()


def test_a_start_without_the_csrf_token_is_refused():
    user = with_roles(UserFactory(is_staff=True), OPERATOR)
    client = Client(enforce_csrf_checks=True)
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    assert client.post("/evaluation/start/", FORM).status_code == 403
    assert not EvaluationRun.objects.exists()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"set": "nope"}, "Select a valid choice"),
        ({"protocol": "moderated"}, "decisions_v1 cannot be asked through moderated: line"),
        ({"model": "nope/none"}, "nope/none"),
    ],
)
def test_a_bad_start_is_a_400_naming_the_problem_and_stores_nothing(change, message, sent):
    response = client_as(OPERATOR).post("/evaluation/start/", {**FORM, **change})
    assert response.status_code == 400
    assert message in response.text
    assert not EvaluationRun.objects.exists() and sent == []


def test_a_second_start_of_a_running_run_is_refused(sent):
    client = client_as(OPERATOR)
    client.post("/evaluation/start/", FORM)
    response = client.post("/evaluation/start/", FORM)
    assert response.status_code == 400 and "is running" in response.text
    assert EvaluationRun.objects.count() == 1


# --- the task that drives it --------------------------------------------------------------------


def test_each_step_asks_what_there_is_room_for_then_finishes_the_run(default_agents, sent):
    run = driving.run_launch(
        set_name="decisions_v1", protocol="vote", with_baselines=True, actor=None
    )
    step = driving.run_advance(run_id=str(run.id))
    assert (step.status, step.asked) == ("running", driving.MAX_IN_FLIGHT)
    asked = Debate.objects.filter(evaluation_item__run=run)
    assert asked.count() == driving.MAX_IN_FLIGHT
    assert set(asked.values_list("created_by__username", flat=True)) == {"evaluation"}
    assert driving.run_advance(run_id=str(run.id)).asked == 0  # none finished: no room

    # The workers answer (stored as finished, as they would); each step asks the next ones.
    answered = Debate.objects.filter(evaluation_item__run=run)
    while EvaluationItem.objects.filter(run=run, debate__isnull=True).exists():
        answered.update(status=Debate.Status.COMPLETED, decision="WARN")
        assert driving.run_advance(run_id=str(run.id)).asked <= driving.MAX_IN_FLIGHT
        assert run.items.filter(debate__status=Debate.Status.QUEUED).count() <= 8
    answered.update(status=Debate.Status.COMPLETED, decision="WARN")
    assert Debate.objects.filter(evaluation_item__run=run).count() == SHIPPED_QUESTIONS
    assert driving.run_advance(run_id=str(run.id)).status == "completed"
    run.refresh_from_db()
    warn = EvaluationItem.objects.filter(run=run, expected="WARN").count()
    assert run.report["accuracy"]["debate"] == {
        "n": SHIPPED_QUESTIONS,
        "agreed": warn,
        "rate": round(warn / SHIPPED_QUESTIONS, 4),
    }
    assert run.finished_at is not None and run.wall_seconds > 0
    assert driving.run_finish(run_id=str(run.id)) == "completed"  # once only


def test_the_task_steps_again_while_the_run_runs_and_stops_it_when_stalled(
    default_agents, sent, monkeypatch
):
    run = driving.run_launch(set_name="decisions_v1", protocol="vote", actor=None)
    later = []
    monkeypatch.setattr(
        tasks.advance_run, "apply_async", lambda args, countdown: later.append(args)
    )
    assert tasks.advance_run(str(run.id)) == "running"
    ((run_id, finished, since),) = later
    assert (run_id, finished) == (str(run.id), 0)
    # Nothing finished for longer than the stall timeout: the run stops, resumable.
    assert tasks.advance_run(run_id, finished, since - driving.STALL_SECONDS - 1) == "interrupted"
    run.refresh_from_db()
    assert run.status == EvaluationRun.Status.INTERRUPTED and len(later) == 1
    assert tasks.advance_run(run_id) == "interrupted"  # a stopped run is left alone


def test_the_sweep_sends_a_step_again_only_to_page_runs_whose_steps_stopped(default_agents, sent):
    from django.core.cache import cache

    stopped = driving.run_launch(set_name="decisions_v1", protocol="vote", actor=None)
    stepping = driving.run_launch(set_name="decisions_v1", protocol="s4", actor=None)
    by_command = make_run([Q("Is 4 an even number?", "ACT", "factual", "ACT", "ACT")])
    EvaluationRun.objects.filter(pk=by_command.pk).update(status=EvaluationRun.Status.RUNNING)
    assert EvaluationRun.objects.get(pk=stopped.pk).from_pages
    assert not EvaluationRun.objects.get(pk=by_command.pk).from_pages
    sent.clear()
    # `stopped`'s next step was lost: its chain's mark ran out; `stepping` stepped just now.
    cache.delete(f"evaluation:chain:{stopped.id}")
    driving.chain_alive(stepping.id)
    assert tasks.sweep_runs() == [str(stopped.id)]
    assert sent == [str(stopped.id)]
    # The step it sent marks the chain alive: the next sweep sends nothing more.
    assert tasks.sweep_runs() == [] and sent == [str(stopped.id)]


# --- comparing two runs -------------------------------------------------------------------------


def _cell(html: str, method: str) -> dict:
    row = html[html.index(f'<tr data-method="{method}">') :]
    row = row[: row.index("</tr>")]
    first = row[: row.index("</td>")]
    shares = re.findall(
        r'data-run="(a|b)">\w: <span class="share" data-agreed="(\d+)" data-n="(\d+)"', first
    )
    return {
        "shares": {side: (int(k), int(n)) for side, k, n in shares},
        "points": re.search(r'data-points="([^"]*)"', first).group(1),
        "verdict": re.search(r'<span class="verdict[^"]*">([^<]*)</span>', first).group(1),
    }


def test_the_comparison_shows_each_runs_accuracy_the_difference_and_the_noise():
    strong = make_run(
        [Q(f"Is {n} an even number?", "ACT", "factual", "ACT", "ACT") for n in range(30)]
    )
    weak = make_run(
        [Q(f"Is {n} an odd number?", "ACT", "factual", "REFUSE", "ACT") for n in range(28)]
        + [
            Q("Is 99 a prime?", "ACT", "factual", "ACT", "ACT"),
            Q("Is 7 a prime?", "ACT", "factual", "ACT", "ACT"),
        ]
    )
    html = client_as(REVIEWER).get(f"/evaluation/compare/?a={strong.id}&b={weak.id}").text
    debate = _cell(html, "debate")
    assert debate["shares"] == {"a": (30, 30), "b": (2, 30)}
    assert debate["points"] == "-93.3"
    assert debate["verdict"] == "B lower, beyond the noise"
    majority = _cell(html, "majority")
    assert majority["shares"] == {"a": (30, 30), "b": (30, 30)}
    assert (majority["points"], majority["verdict"]) == ("0.0", "within the noise")
    assert f'href="/evaluation/{strong.id}/"' in html and f'href="/evaluation/{weak.id}/"' in html


@pytest.mark.parametrize(
    ("query", "status", "message"),
    [
        ("", 400, "a is missing"),
        ("?a={a}", 400, "b is missing"),
        ("?a={a}&b=12", 400, "b=&#x27;12&#x27; is not a run id"),
        ("?a={a}&b=3f1c1c7e-0000-4000-8000-000000000000", 404, "There is no evaluation run b="),
    ],
)
def test_bad_or_missing_runs_to_compare_are_a_clear_4xx(query, status, message):
    run = make_run([Q("Is 4 even?", "ACT", "factual", "ACT")])
    response = client_as(REVIEWER).get("/evaluation/compare/" + query.format(a=run.id))
    assert response.status_code == status
    assert message in response.text


def test_the_migration_grants_the_start_permission_to_operators_only():
    from importlib import import_module

    from django.contrib.auth.models import Group
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    # The models as the migration sees them (never the running apps: the migration marks its
    # app's stand-in as having models while it makes the permissions).
    apps = (
        MigrationExecutor(connection)
        .loader.project_state(("evaluation", "0002_operators_start_runs"))
        .apps
    )
    migration = import_module("evaluation.migrations.0002_operators_start_runs")
    Group.objects.filter(name__in=[OPERATOR, REVIEWER]).delete()
    operators, reviewers = Group.objects.create(name=OPERATOR), Group.objects.create(name=REVIEWER)
    migration.grant(apps, None)
    assert list(operators.permissions.values_list("content_type__app_label", "codename")) == [
        ("evaluation", "add_evaluationrun")
    ]
    assert not reviewers.permissions.exists()
    migration.revoke(apps, None)
    assert not operators.permissions.exists()
    # The running app still makes its permissions after a flush.
    from django.apps import apps as running

    assert running.get_app_config("evaluation").models_module is not None
