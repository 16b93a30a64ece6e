"""The readiness endpoint: PostgreSQL, Redis and a worker, each reported to staff; anyone else
sees the status only (no worker node names, no connection errors)."""

from __future__ import annotations

import pytest

URL = "/api/v1/health/"


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_health_is_200_when_the_database_redis_and_a_worker_answer(
    celery_worker_process, anon_api, api, staff_api
):
    for everyone_else in (anon_api, api):
        response = everyone_else.get(URL)
        assert response.status_code == 200
        assert response.json() == {"status": "ok"}
    response = staff_api.get(URL)
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["status"] == "ok"
    assert {name: check["ok"] for name, check in body["checks"].items()} == {
        "database": True,
        "redis": True,
        "worker": True,
    }
    assert "A worker answered: test-" in body["checks"]["worker"]["detail"]
    assert response["Cache-Control"] == "no-store"


def test_health_is_503_naming_what_is_down_to_staff_only(db, anon_api, staff_api, settings):
    settings.REDIS_URL = "redis://127.0.0.1:9/0"
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:9/0"
    anonymous = anon_api.get(URL)
    assert anonymous.status_code == 503
    assert anonymous.json() == {"status": "unavailable"}
    response = staff_api.get(URL)
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    checks = body["checks"]
    assert checks["database"]["ok"] is True
    assert checks["redis"]["ok"] is False and "Connection" in checks["redis"]["detail"]
    assert checks["worker"]["ok"] is False
