"""Production refuses a metrics token short enough to guess, and starts with a long one."""

from __future__ import annotations

import pytest

from tests.test_settings_modes import PRODUCTION, run

# Each test starts Python processes with production settings.
pytestmark = pytest.mark.slow

READ = (
    "import django; django.setup(); from django.conf import settings; print(settings.METRICS_TOKEN)"
)


def test_production_refuses_a_short_metrics_token():
    result = run(READ, **PRODUCTION, METRICS_TOKEN="short-token")
    assert result.returncode != 0
    assert "METRICS_TOKEN is too short" in result.stderr


def test_production_starts_with_a_long_metrics_token_or_none():
    token = "t0ken-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"
    result = run(READ, **PRODUCTION, METRICS_TOKEN=token)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == token
    result = run(READ, **PRODUCTION)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""
