"""Readiness: can this process reach PostgreSQL and Redis, and does a worker answer?"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import redis
from django.conf import settings
from django.db import connection, transaction
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import exceptions, permissions, serializers, status
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView


def _database(timeout: float) -> str:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config('statement_timeout', %s, true)", [str(int(timeout * 1000))]
        )
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return "PostgreSQL answered."


def _redis(timeout: float) -> str:
    client = redis.Redis.from_url(
        settings.REDIS_URL, socket_timeout=timeout, socket_connect_timeout=timeout
    )
    try:
        client.ping()
    finally:
        client.close()
    return "Redis answered."


def _worker(timeout: float) -> str:
    from config.celery import app

    with app.connection_for_write(settings.CELERY_BROKER_URL) as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=timeout)
        replies = app.control.ping(timeout=timeout, connection=conn, limit=1)
    if not replies:
        raise RuntimeError(f"No Celery worker answered a ping within {timeout:g} s.")
    names = sorted(name for reply in replies for name in reply)
    return f"A worker answered: {names[0]}."


CHECKS: dict[str, Callable[[float], str]] = {
    "database": _database,
    "redis": _redis,
    "worker": _worker,
}


def run_checks() -> tuple[bool, dict[str, dict[str, Any]]]:
    timeout = settings.HEALTH_CHECK_TIMEOUT
    results: dict[str, dict[str, Any]] = {}
    for name, check in CHECKS.items():
        started = time.monotonic()
        try:
            detail, ok = check(timeout), True
        except Exception as exc:  # noqa: BLE001 - any failure means "not ready", with its reason
            detail, ok = f"{type(exc).__name__}: {exc}"[:500], False
        results[name] = {
            "ok": ok,
            "detail": detail,
            "duration_ms": round((time.monotonic() - started) * 1000, 1),
        }
    return all(r["ok"] for r in results.values()), results


HEALTH_STATUSES = ["ok", "unavailable"]
HEALTH_CHECK = inline_serializer(
    "HealthCheck",
    {
        "ok": serializers.BooleanField(),
        "detail": serializers.CharField(),
        "duration_ms": serializers.FloatField(),
    },
)
HEALTH = inline_serializer(
    "Health",
    {
        "status": serializers.ChoiceField(choices=HEALTH_STATUSES),
        "checks": inline_serializer(
            "HealthChecks",
            {"database": HEALTH_CHECK, "redis": HEALTH_CHECK, "worker": HEALTH_CHECK},
            required=False,
            help_text="Each check's result: for staff only.",
        ),
    },
)


def _may_see_details(request) -> bool:
    """Each check's detail (e.g. the worker's node name) is for staff signed in (session or
    token); anyone else sees the status only."""
    for authenticator in (cls() for cls in api_settings.DEFAULT_AUTHENTICATION_CLASSES):
        try:
            found = authenticator.authenticate(request)
        except exceptions.APIException:
            return False
        if found is not None:
            return bool(found[0].is_active and found[0].is_staff)
    return False


class HealthView(APIView):
    """Readiness: 200 when PostgreSQL and Redis answer and a Celery worker answers a ping.
    Staff also see each check's detail."""

    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        summary="Readiness check",
        auth=[],
        responses={200: HEALTH, 503: OpenApiResponse(HEALTH, description="Not ready")},
    )
    def get(self, request):
        ok, checks = run_checks()
        body = {"status": "ok" if ok else "unavailable"}
        if _may_see_details(request):
            body["checks"] = checks
        return Response(
            body,
            status=status.HTTP_200_OK if ok else status.HTTP_503_SERVICE_UNAVAILABLE,
            headers={"Cache-Control": "no-store"},
        )
