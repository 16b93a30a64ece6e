"""The operators' metrics endpoint: who may read it, that Prometheus can parse it, that its figures
are the stored rows', and that a scrape costs a bounded number of queries."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from celery import current_app
from django.core.cache import cache
from django.db.models import Count, Sum
from django.urls import reverse
from django.utils import timezone
from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as openmetrics_families,
)
from prometheus_client.parser import text_string_to_metric_families

from accounts.roles import AGENT_EDITOR, OPERATOR, REVIEWER
from analytics.metrics import exposition, figures
from debates import recovery, running, services
from debates.models import Debate, LLMCall
from reviews import services as reviews
from reviews.models import ReviewItem
from runs import counters
from tests.factories import CompletedDebateFactory, StaffFactory, UserFactory
from tests.reviews.conftest import SPLIT, VETO, failed_debate, run_offline
from tests.support.fake_openai import Reply

URL = reverse("metrics")
TOKEN = "metrics-token-for-tests-0123456789abcdef"


@pytest.fixture(autouse=True)
def _fresh_metrics(settings, redis_client):
    """Every test reads fresh figures (the cache is Redis, shared by the tests), with a token."""
    settings.METRICS_TOKEN = TOKEN
    for tier in ("operations", "evaluation"):
        cache.delete(figures.CACHE_KEY.format(tier=tier))
        cache.delete(figures.CACHE_KEY.format(tier=tier) + ":refreshing")
    redis_client.delete(counters.SWEEPER_KEY)
    yield
    for tier in ("operations", "evaluation"):
        cache.delete(figures.CACHE_KEY.format(tier=tier))


def scrape(client) -> dict[tuple[str, tuple], float]:
    """{(sample name, sorted labels): value} of one scrape with the bearer token."""
    response = client.get(URL, HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"].startswith("text/plain; version=")
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples


def value(samples, name, **labels) -> float:
    return samples[(name, tuple(sorted(labels.items())))]


# --- who may read it ---------------------------------------------------------------------------


def test_anonymous_callers_are_asked_for_the_token(client, db):
    response = client.get(URL)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="metrics"'
    assert b"Authorization: Bearer" in response.content
    assert client.get(URL, HTTP_AUTHORIZATION="Basic dXNlcjpwdw==").status_code == 401


def test_a_wrong_token_is_refused(client, db):
    response = client.get(URL, HTTP_AUTHORIZATION="Bearer not-the-token")
    assert response.status_code == 403
    assert b"not the metrics token" in response.content


def test_no_token_is_accepted_when_none_is_configured(client, db, settings):
    settings.METRICS_TOKEN = ""
    response = client.get(URL, HTTP_AUTHORIZATION="Bearer ")
    assert response.status_code == 401
    response = client.get(URL, HTTP_AUTHORIZATION="Bearer anything")
    assert response.status_code == 403
    assert b"No METRICS_TOKEN is configured" in response.content


def test_signed_in_users_without_the_figures_permission_are_refused(client, db):
    client.force_login(UserFactory())
    assert client.get(URL).status_code == 403
    # Staff without a role (only the admin) and Agent editors do not read figures either.
    for roles in ([], [AGENT_EDITOR]):
        client.force_login(StaffFactory(roles=roles))
        response = client.get(URL)
        assert response.status_code == 403 and b"permission to read figures" in response.content


@pytest.mark.parametrize("role", [REVIEWER, OPERATOR])
def test_reviewers_operators_and_the_token_read_the_metrics(client, db, role):
    client.force_login(StaffFactory(roles=[role]))
    response = client.get(URL)
    assert response.status_code == 200
    assert b"# TYPE debates_created_total counter" in response.content
    client.logout()
    assert client.get(URL, HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 200


def test_openmetrics_is_served_to_a_prometheus_that_asks_for_it(client, db):
    CompletedDebateFactory(protocol="vote")
    response = client.get(
        URL,
        HTTP_AUTHORIZATION=f"Bearer {TOKEN}",
        HTTP_ACCEPT="application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5",
    )
    assert response["Content-Type"].startswith("application/openmetrics-text; version=1.0.0")
    parsed = {f.name: f for f in openmetrics_families(response.content.decode())}
    assert parsed["debates_created"].type == "counter"
    assert [s.value for s in parsed["debates_created"].samples] == [1]


def test_only_get_is_answered(client, db):
    assert client.post(URL, HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 405


# --- the figures are the rows' -----------------------------------------------------------------


def test_debates_calls_and_reviews_match_the_stored_rows(client, default_agents, admin_user):
    split = run_offline(SPLIT)
    veto = run_offline(VETO)
    failed = failed_debate("Will it rain tomorrow?")
    services.debate_create(query="Still waiting for a worker", enqueue=False)
    item = ReviewItem.objects.get(debate=veto)
    reviews.review_claim(item_id=item.pk, user=admin_user)
    reviews.review_resolve(item_id=item.pk, user=admin_user, verdict="uphold", note="right")

    samples = scrape(client)

    assert value(samples, "debates_created_total", protocol="s4") == 4
    assert value(samples, "debates_completed_total", protocol="s4") == 2
    assert value(samples, "debates_failed_total", protocol="s4") == 1
    assert value(samples, "debates_by_status", protocol="s4", status="queued") == 1
    assert value(samples, "debates_by_status", protocol="s4", status="failed") == 1
    assert value(samples, "debates_consensus_total", protocol="s4", consensus="veto") == 1
    assert value(samples, "debates_consensus_total", protocol="s4", consensus=split.consensus_type)
    assert value(samples, "debates_consensus_ratio", protocol="s4", consensus="veto") == 0.5
    assert failed.status == Debate.Status.FAILED

    # Calls per model: the stored rows, summed by the test on its own.
    assert LLMCall.objects.filter(status="failed").exists()  # the failed debate's
    for row in (
        LLMCall.objects.order_by()
        .values("model")
        .annotate(
            n=Count("pk"),
            attempts=Sum("attempts"),
            tokens_in=Sum("tokens_in"),
            tokens_out=Sum("tokens_out"),
        )
    ):
        labels = {"source": "debates", "model": row["model"]}
        done = LLMCall.objects.filter(model=row["model"], status="done").count()
        failed_calls = LLMCall.objects.filter(model=row["model"], status="failed").count()
        assert samples.get(("debates_llm_calls_total", _l(**labels)), 0) == done
        assert samples.get(("debates_llm_calls_failed", _l(**labels)), 0) == failed_calls
        assert value(samples, "debates_llm_call_attempts_total", **labels) == row["attempts"]
        assert (
            value(samples, "debates_llm_tokens_total", **labels, direction="in")
            == (row["tokens_in"])
        )
        assert (
            value(samples, "debates_llm_tokens_total", **labels, direction="out")
            == (row["tokens_out"])
        )
        assert value(samples, "debates_llm_call_latency_seconds_count", **labels) == (
            done + failed_calls
        )
        assert value(samples, "debates_llm_call_latency_seconds_bucket", **labels, le="+Inf") == (
            done + failed_calls
        )

    # Review items: the backlog is what waits, the closed ones by verdict.
    waiting = ReviewItem.objects.filter(status__in=ReviewItem.ACTIVE)
    backlog = sum(v for (name, _), v in samples.items() if name == "debates_review_backlog")
    assert backlog == waiting.count() >= 2
    assert value(samples, "debates_review_items_closed_total", outcome="uphold") == 1
    assert value(samples, "debates_review_backlog_oldest_age_seconds") >= 0
    assert value(samples, "debates_runs", kind="debates", status="queued") == 1

    # The evaluation figures (docs/operations/metrics.md#evaluation-figures): accuracy against
    # the one verdict, costs, every source up.
    assert value(samples, "debates_ground_truth_labelled", by="all", key="all") == 1
    assert (
        value(samples, "debates_ground_truth_agreed", by="protocol", key="s4", decider="debate")
        == 1
    )
    assert (
        value(
            samples, "debates_ground_truth_agreement_ratio", by="all", key="all", decider="debate"
        )
        == 1.0
    )
    assert value(samples, "debates_independent_answers_total", protocol="s4") == 6
    for source in ("debates", "failures", "calls", "reviews", "runs", "queue", "sweeper"):
        assert value(samples, "debates_metrics_source_up", source=source) == 1
    assert value(samples, "debates_metrics_source_up", source="ground_truth") == 1


def _l(**labels):
    return tuple(sorted(labels.items()))


def test_retries_and_latency_of_a_real_model_are_counted(client, default_agents, fake_openai):
    fake_openai.script_for("Safety Agent", Reply.error(503), Reply.error(429))
    debate = services.debate_create(
        query=SPLIT, options={"model": fake_openai.model}, enqueue=False
    )
    running.debate_run(debate_id=debate.id)

    samples = scrape(client)

    calls = LLMCall.objects.filter(debate=debate)
    model = calls.values_list("model", flat=True).distinct().get()
    labels = {"source": "debates", "model": model}
    assert value(samples, "debates_llm_call_retries_total", **labels) == 2
    assert value(samples, "debates_llm_call_attempts_total", **labels) == calls.count() + 2
    assert fake_openai.count() == calls.count() + 2
    latency = sum(calls.values_list("latency_ms", flat=True)) / 1000
    assert value(samples, "debates_llm_call_latency_seconds_sum", **labels) == pytest.approx(
        latency
    )


def test_the_cost_of_a_debate_is_compared_with_a_single_agents(client, default_agents):
    debate = run_offline(SPLIT)
    # The offline model is free: price the stored calls as a provider would have.
    LLMCall.objects.filter(debate=debate).update(cost_usd=Decimal("0.001"))
    Debate.objects.filter(pk=debate.pk).update(cost_usd=Decimal("0.012"))

    samples = scrape(client)

    assert value(samples, "debates_cost_per_debate_usd", protocol="s4") == pytest.approx(0.012)
    assert value(samples, "debates_single_agent_cost_usd", protocol="s4") == pytest.approx(0.001)
    assert value(samples, "debates_cost_vs_single_agent_ratio", protocol="s4") == pytest.approx(
        12.0
    )
    assert value(samples, "debates_cost_usd_total", protocol="s4", status="completed") == (
        pytest.approx(0.012)
    )


def test_quality_and_single_agent_comparison_are_exposed_with_their_n(client, default_agents):
    run_offline(SPLIT)
    run_offline(VETO)
    stored = [d.quality for d in Debate.objects.filter(status=Debate.Status.COMPLETED)]
    overall = [q["overall_quality"] for q in stored if q.get("overall_quality") is not None]
    assert len(overall) == 2

    samples = scrape(client)

    assert value(samples, "debates_quality_score_debates", score="overall_quality") == 2
    assert value(samples, "debates_quality_score", score="overall_quality") == pytest.approx(
        sum(overall) / 2, abs=1e-4
    )
    # No reviewer has judged either debate: the comparison rests on nothing and has no value.
    assert (
        value(samples, "debates_single_agent_comparison_examples", figure="accuracy_improvement")
        == 0
    )
    assert ("debates_single_agent_comparison", (("figure", "accuracy_improvement"),)) not in (
        samples
    )


def test_the_sweepers_reclaims_are_counted_across_processes(
    client, default_agents, private_queue, django_capture_on_commit_callbacks
):
    services.debate_create(query="Is it raining?", enqueue=False)
    later = timezone.now() + timedelta(seconds=3600)
    with django_capture_on_commit_callbacks(execute=True):
        report = recovery.recover_stuck_debates(now=later)
    assert len(report.requeued) == 1

    samples = scrape(client)

    assert value(samples, "debates_sweeper_reclaims_total", kind="debates", outcome="requeued") == 1
    assert value(samples, "debates_sweeper_reclaims_total", kind="debates", outcome="gave_up") == 0
    assert (
        value(
            samples, "debates_sweeper_reclaims_total", kind="contradiction_runs", outcome="requeued"
        )
        == 0
    )


def test_the_queue_depth_is_the_brokers(client, db, private_queue, redis_client):
    from debates.tasks import run_debate

    for _ in range(3):
        run_debate.delay("00000000-0000-0000-0000-000000000000")

    samples = scrape(client)

    assert value(samples, "debates_queue_messages", queue=private_queue, state="waiting") == 3


def test_a_source_that_cannot_be_read_is_reported_down_and_the_rest_served(client, db, monkeypatch):
    CompletedDebateFactory()
    monkeypatch.setattr(current_app.conf, "broker_url", "memory://")

    samples = scrape(client)

    assert value(samples, "debates_metrics_source_up", source="queue") == 0
    assert value(samples, "debates_metrics_source_up", source="debates") == 1
    assert value(samples, "debates_created_total", protocol="s4") == 1
    assert not any(name == "debates_queue_messages" for name, _ in samples)


# --- what a scrape costs ----------------------------------------------------------------------


def _stored(n: int) -> None:
    for i in range(n):
        CompletedDebateFactory(query=f"q{i}", protocol=("s4", "vote")[i % 2])


@pytest.mark.parametrize("count", [3, 60])
def test_a_scrape_costs_a_bounded_number_of_queries_whatever_the_number_of_debates(
    client, db, django_assert_max_num_queries, count
):
    _stored(count)
    # 7 + 4 reads, a statement timeout set and reset per tier; none per debate.
    with django_assert_max_num_queries(15):
        samples = scrape(client)
    assert value(samples, "debates_created_total", protocol="s4") == (count + 1) // 2
    assert value(samples, "debates_created_total", protocol="vote") == count // 2


def test_a_scrape_within_the_cache_period_asks_the_database_nothing(
    client, db, django_assert_num_queries, settings
):
    settings.METRICS_CACHE_SECONDS = 60
    _stored(2)
    first = scrape(client)
    CompletedDebateFactory(query="after the first scrape")
    with django_assert_num_queries(0):
        second = scrape(client)
    assert value(first, "debates_created_total", protocol="s4") == 1
    assert value(second, "debates_created_total", protocol="s4") == 1  # the cached figures
    settings.METRICS_CACHE_SECONDS = 0
    third = scrape(client)
    assert value(third, "debates_created_total", protocol="s4") == 2


def test_while_one_process_refreshes_the_figures_the_others_serve_the_previous_ones(
    client, db, django_assert_num_queries, settings
):
    settings.METRICS_CACHE_SECONDS = 30
    CompletedDebateFactory()
    scrape(client)  # both tiers cached
    key = figures.CACHE_KEY.format(tier="operations")
    stale = cache.get(key)
    cache.set(key, {**stale, "read_at": stale["read_at"] - 3600})  # due for a refresh
    CompletedDebateFactory()

    cache.add(key + ":refreshing", 1, timeout=30)  # another process is reading them
    with django_assert_num_queries(0):
        samples = scrape(client)
    assert value(samples, "debates_created_total", protocol="s4") == 1
    assert value(samples, "debates_metrics_age_seconds", tier="operations") >= 3600

    cache.delete(key + ":refreshing")  # it is done (or died): the next scrape refreshes
    samples = scrape(client)
    assert value(samples, "debates_created_total", protocol="s4") == 2
    assert cache.get(key + ":refreshing") is None


def test_when_the_figures_cannot_be_served_prometheus_gets_a_503(client, db, monkeypatch):
    def down():
        raise ConnectionError("Redis is not answering")

    monkeypatch.setattr(figures, "operations", down)
    response = client.get(URL, HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 503
    assert b"cannot be served now: ConnectionError" in response.content


# --- the families, without a database -----------------------------------------------------------


def test_latency_buckets_are_cumulative_and_merge_statuses():
    row = {
        "source": "debates",
        "model": "openai/x",
        "attempts": 3,
        "retries": 1,
        "tokens_in": 10,
        "tokens_out": 5,
        "cost": 0.5,
        "latency_s": 3.0,
    }
    operations = {
        "read_at": 100.0,
        "sources": {},
        "calls": [
            {**row, "status": "done", "n": 2, "finished": 2, "buckets": [0, 1, 1, 2] + [2] * 7},
            {**row, "status": "failed", "n": 1, "finished": 1, "buckets": [0] * 10 + [1]},
            {**row, "status": "pending", "n": 4, "finished": 0, "buckets": [0] * 11},
        ],
    }
    out = exposition.families(operations, {"read_at": 100.0, "sources": {}}, now=100.0, kinds=[])
    (latency,) = [f for f in out if f.name == "debates_llm_call_latency_seconds"]
    buckets = [s.value for s in latency.samples if s.name.endswith("_bucket")]
    assert buckets == [0, 1, 1, 2, 2, 2, 2, 2, 2, 2, 3, 3]  # 11 bounds and +Inf
    assert [s.value for s in latency.samples if s.name.endswith("_count")] == [3]
    (pending,) = [f for f in out if f.name == "debates_llm_calls_pending"]
    assert [s.value for s in pending.samples] == [4]
    (attempts,) = [f for f in out if f.name == "debates_llm_call_attempts"]
    assert [s.value for s in attempts.samples] == [9]


# --- end to end: debates run by a real worker, scraped from this process ------------------------


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_debates_a_worker_ran_are_counted_by_the_web_process(
    client, celery_worker_process, default_agents
):
    from tests.conftest import wait_for

    debates = [services.debate_create(query=q) for q in (SPLIT, "What is the capital of France?")]
    for debate in debates:
        done = wait_for(
            lambda d=debate: Debate.objects.filter(pk=d.pk, status="completed").exists(),
            timeout=90,
        )
        assert done

    samples = scrape(client)

    assert value(samples, "debates_created_total", protocol="s4") == 2
    assert value(samples, "debates_completed_total", protocol="s4") == 2
    assert value(samples, "debates_failed_total", protocol="s4") == 0
    labels = {"source": "debates", "model": "offline/heuristic-demo"}
    assert value(samples, "debates_llm_calls_total", **labels) == 24
    assert value(samples, "debates_llm_call_retries_total", **labels) == 0
    # The worker's offline model takes 0.3 s a call (DEBATE_OFFLINE_LATENCY): none under
    # 0.25 s; every bucket holds the stored calls as fast as its bound.
    assert value(samples, "debates_llm_call_latency_seconds_bucket", **labels, le="0.25") == 0
    for bound in ("0.5", "1.0", "2.5", "10.0"):
        stored = LLMCall.objects.filter(latency_ms__lte=float(bound) * 1000).count()
        assert value(samples, "debates_llm_call_latency_seconds_bucket", **labels, le=bound) == (
            stored
        )
    assert value(samples, "debates_llm_call_latency_seconds_bucket", **labels, le="+Inf") == 24
    assert value(samples, "debates_independent_answers_total", protocol="s4") == 6
    assert value(samples, "debates_by_status", protocol="s4", status="completed") == 2
