"""The OpenAPI schema: valid without warnings, served with offline docs, and the API keeps to it
(schemathesis: every operation, the schema's examples, coverage cases and a bounded number of
generated requests, for an ordinary user and for staff with every role; the counts are printed
at the end of the run (`tests/api/conftest.py`) and written in the README)."""

from __future__ import annotations

import io
from collections import Counter, defaultdict
from urllib.parse import urlsplit

import pytest
import schemathesis
from django.core.management import call_command
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from accounts.services import token_issue
from reviews.models import ReviewItem
from tests.factories import StaffFactory, UserFactory
from tests.reviews.conftest import SPLIT, failed_debate, run_offline


def test_the_schema_validates_without_warnings(db):
    out = io.StringIO()
    call_command("spectacular", "--validate", "--fail-on-warn", stdout=out)
    schema = out.getvalue()
    assert "openapi: 3.0.3" in schema
    for path in (
        "/api/v1/debates/",
        "/api/v1/debates/{id}/",
        "/api/v1/agents/{slug}/",
        "/api/v1/health/",
        "/api/v1/webhook-secret/",
        "/api/v1/reviews/",
        "/api/v1/reviews/{id}/",
        "/api/v1/reviews/{id}/claim/",
        "/api/v1/reviews/{id}/release/",
        "/api/v1/reviews/{id}/resolve/",
        "/api/v1/reviews/{id}/dismiss/",
        "/api/v1/reviews/{id}/rerun/",
    ):
        assert f"{path}:" in schema


def test_the_schema_is_served_as_json_and_the_docs_page_loads_nothing_from_elsewhere(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    assert response.json()["info"]["title"] == "Debate service API"
    html = client.get("/api/docs/").content.decode()
    assert "/static/drf_spectacular_sidecar/" in html
    assert "https://" not in html and "//cdn" not in html


@pytest.mark.django_db(transaction=True)
def test_the_interactive_docs_work_offline_in_chromium(live_server, page, artifacts_dir):
    hosts: set[str] = set()
    page.on("request", lambda request: hosts.add(urlsplit(request.url).netloc))
    page.goto(f"{live_server.url}/api/docs/")
    page.wait_for_selector("text=Start a debate")
    page.wait_for_selector("text=Readiness check")
    page.screenshot(path=str(artifacts_dir / "api-docs.png"), full_page=False)
    assert hosts == {urlsplit(live_server.url).netloc}


# --- schemathesis -----------------------------------------------------------------------------


# Loaded from the app itself and exercised in-process (WSGI). The readiness check is left out:
# it pings workers for up to a second and takes no input.
schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application()).exclude(
    path="/api/v1/health/"
)


@pytest.fixture
def in_process_requests(db, default_agents):
    """Requests made straight to the WSGI app run on the test's database connection: they must
    not close it at their start and end (Django's test client does the same)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def staff_token(staff_user, settings):
    settings.DEBATE_API_CREATE_RATE = "100000/minute"
    _, raw = token_issue(user=staff_user, name="schemathesis")
    return raw


# role -> what the property tests saw: cases, server errors, schema violations (other checks).
FUZZ_COUNTS: dict[str, Counter] = defaultdict(Counter)


@pytest.fixture(params=["user", "staff"])
def fuzz_role(request, settings):
    """An ordinary user, or staff with every role (Reviewer, Agent editor, Operator)."""
    settings.DEBATE_API_CREATE_RATE = "100000/minute"
    settings.CONTRADICTION_API_CREATE_RATE = "100000/minute"
    factory = StaffFactory if request.param == "staff" else UserFactory
    _, raw = token_issue(user=factory(username=f"fuzz-{request.param}"), name="schemathesis")
    return request.param, raw


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_the_api_keeps_to_its_schema(case, in_process_requests, fuzz_role):
    role, token = fuzz_role
    counts = FUZZ_COUNTS[role]
    counts["cases"] += 1
    try:
        case.call_and_validate(
            headers={"Authorization": f"Bearer {token}"},
            checks=[
                not_a_server_error,
                status_code_conformance,
                content_type_conformance,
                response_headers_conformance,
                response_schema_conformance,
                negative_data_rejection,
            ],
        )
    except Exception as exc:
        text = str(exc)
        counts["server_errors" if "Server error" in text or "500" in text else "violations"] += 1
        raise


def test_unknown_api_paths_get_a_json_404_and_other_pages_the_html_one(api, client):
    response = api.get("/api/v1/nothing-here/")
    assert response.status_code == 404
    assert "/api/docs/" in response.json()["detail"]
    page = client.get("/no-such-page/")
    assert page.status_code == 404
    assert page["Content-Type"].startswith("text/html")


def test_real_review_answers_keep_to_the_schema(in_process_requests, staff_token):
    """Generated ids rarely name a real review item, so walk one through its life here: every
    answer (list, read, each action, a conflict, bad input) is checked against the schema."""
    item = ReviewItem.objects.get(debate=run_offline(SPLIT), reason="split_vote")
    headers = {"Authorization": f"Bearer {staff_token}"}
    one = {"id": item.pk}
    steps = [
        ("/api/v1/reviews/", "GET", None, {"reason": "split_vote"}, 200),
        ("/api/v1/reviews/{id}/", "GET", None, None, 200),
        ("/api/v1/reviews/{id}/claim/", "POST", None, None, 200),
        ("/api/v1/reviews/{id}/release/", "POST", {"note": "later"}, None, 200),
        ("/api/v1/reviews/{id}/release/", "POST", {}, None, 409),
        ("/api/v1/reviews/{id}/resolve/", "POST", {"verdict": "override", "note": "x"}, None, 400),
        (
            "/api/v1/reviews/{id}/resolve/",
            "POST",
            {"verdict": "override", "decision": "REFUSE", "note": "too risky"},
            None,
            200,
        ),
        ("/api/v1/reviews/{id}/dismiss/", "POST", {"note": "again"}, None, 409),
    ]
    for path, method, body, query, expected in steps:
        case = schema[path][method].Case(
            path_parameters=one if "{id}" in path else None,
            query=query,
            **({} if body is None else {"body": body, "media_type": "application/json"}),
        )
        response = case.call_and_validate(headers=headers)
        assert response.status_code == expected, (path, response.text)


def test_real_failure_review_answers_keep_to_the_schema(in_process_requests, staff_token):
    """A failed debate's item and a failed run's item, through their actions: every answer is
    checked against the schema."""
    from contradictions.running import contradiction_run_fail
    from contradictions.services import contradiction_run_create
    from tests.contradictions.conftest import reports_of

    item = failed_debate().review_items.get()
    run = contradiction_run_create(reports=reports_of("simple"), enqueue=False)
    contradiction_run_fail(run_id=run.id, error="The arbitrator's model failed (permanent).")
    run_item = ReviewItem.objects.get(contradiction_run=run)
    headers = {"Authorization": f"Bearer {staff_token}"}
    steps = [
        ("/api/v1/reviews/", "GET", item, None, {"status": "all"}, 200),
        ("/api/v1/reviews/{id}/", "GET", item, None, None, 200),
        ("/api/v1/reviews/{id}/", "GET", run_item, None, None, 200),
        (
            "/api/v1/reviews/{id}/resolve/",
            "POST",
            item,
            {"verdict": "uphold", "note": "x"},
            None,
            400,
        ),
        ("/api/v1/reviews/{id}/rerun/", "POST", item, {"note": 5}, None, 400),
        ("/api/v1/reviews/{id}/rerun/", "POST", item, {"note": "key renewed"}, None, 200),
        ("/api/v1/reviews/{id}/rerun/", "POST", item, {}, None, 409),
        ("/api/v1/reviews/{id}/dismiss/", "POST", run_item, {"note": "withdrawn"}, None, 200),
    ]
    for path, method, subject, body, query, expected in steps:
        case = schema[path][method].Case(
            path_parameters={"id": subject.pk} if "{id}" in path else None,
            query=query,
            **({} if body is None else {"body": body, "media_type": "application/json"}),
        )
        response = case.call_and_validate(headers=headers)
        assert response.status_code == expected, (path, response.text)


# --- hostile values: every operation, every field ----------------------------------------------

# Text no UTF-8 can carry (a lone surrogate, as JSON can send it), days and times at the ends of
# the calendar, and integers past any column: each in turn in every field an operation reads.
LONE_SURROGATE = "\ud800"
EXTREME_DAYS = ["0001-01-01", "9999-12-31"]
EXTREME_TIMES = ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "0001-01-01T00:00:00+14:00"]
HUGE = [2**63, -(2**63)]
HOSTILE_COUNTS: Counter = Counter()


def _resolved(node: dict) -> dict:
    while "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        node = schema.raw_schema["components"]["schemas"][name]
    return node


def _hostile(prop: dict) -> list:
    prop = _resolved(prop)
    if prop.get("format") == "date":
        return [*EXTREME_DAYS, LONE_SURROGATE]
    if prop.get("format") == "date-time":
        return [*EXTREME_TIMES, LONE_SURROGATE]
    if prop.get("type") == "integer":
        return [*HUGE, LONE_SURROGATE]
    if prop.get("type") == "array":
        return [[LONE_SURROGATE], LONE_SURROGATE]
    if prop.get("type") == "object":
        return [{LONE_SURROGATE: LONE_SURROGATE}, LONE_SURROGATE]
    return [LONE_SURROGATE, f"a{LONE_SURROGATE}b" * 300]


def _hostile_cases():
    for path, methods in schema.raw_schema["paths"].items():
        if path == "/api/v1/health/":
            continue
        for method, operation in methods.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "query":
                    for value in _hostile(parameter.get("schema", {})):
                        # A URL carries bytes: a lone surrogate's bytes (ED A0 80, not UTF-8)
                        # reach the view as U+FFFD, which Django puts in their place.
                        if isinstance(value, str):
                            value = value.replace(LONE_SURROGATE, "\ufffd")
                        yield path, method, {"query": {parameter["name"]: value}}
            content = operation.get("requestBody", {}).get("content", {})
            body = _resolved(content.get("application/json", {}).get("schema", {}))
            for name, prop in body.get("properties", {}).items():
                for value in _hostile(prop):
                    yield path, method, {"body": {name: value}}


def test_hostile_values_in_every_field_get_an_answer_never_a_server_error(
    in_process_requests, staff_token, settings
):
    """Staff with every role (so the permission checks let each request reach its input's
    checks), every operation, each field in turn: a 4xx with a JSON message or a 2xx, never a
    5xx. The count is printed at the end of the run."""
    settings.EVALUATION_REPLAY_RATE = "100000/minute"
    settings.WEBHOOK_PING_RATE = "100000/minute"
    ids = {"id": 1, "slug": "utility"}
    failures = []
    for path, method, sent in _hostile_cases():
        params = {k: v for k, v in ids.items() if "{" + k + "}" in path}
        case = schema[path][method.upper()].Case(
            path_parameters=params or None,
            query=sent.get("query"),
            **({"body": sent["body"], "media_type": "application/json"} if "body" in sent else {}),
        )
        response = case.call(headers={"Authorization": f"Bearer {staff_token}"})
        HOSTILE_COUNTS["requests"] += 1
        if response.status_code >= 500:
            HOSTILE_COUNTS["server_errors"] += 1
            failures.append((method, path, sent, response.status_code, response.text[:200]))
        elif response.status_code >= 400:
            assert response.headers["content-type"] == ["application/json"], (path, sent)
    print(
        f"\nhostile values: {HOSTILE_COUNTS['requests']} requests, "
        f"{HOSTILE_COUNTS['server_errors']} server errors"
    )
    assert not failures, failures
