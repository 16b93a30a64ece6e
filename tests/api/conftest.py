"""API fixtures: users, tokens and clients that authenticate the way programs do."""

from __future__ import annotations

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from accounts.services import token_issue


@pytest.fixture(autouse=True)
def _fresh_throttle_counters(redis_client):
    """Throttle windows live in Redis; each test starts with none (other keys are left)."""
    prefix = settings.CACHES["default"].get("KEY_PREFIX", "")
    for key in redis_client.scan_iter(f"{prefix}:*throttle:*"):
        redis_client.delete(key)


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("ana", password="a-long-passphrase")


@pytest.fixture
def other_user(django_user_model):
    return django_user_model.objects.create_user("ben", password="a-long-passphrase")


@pytest.fixture
def staff_user(django_user_model):
    return django_user_model.objects.create_user(
        "sam", password="a-long-passphrase", is_staff=True
    )


def client_for(user) -> APIClient:
    client = APIClient()
    if user is not None:
        _, raw = token_issue(user=user, name="tests")
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


@pytest.fixture
def api(user):
    return client_for(user)


@pytest.fixture
def other_api(other_user):
    return client_for(other_user)


@pytest.fixture
def staff_api(staff_user):
    return client_for(staff_user)


@pytest.fixture
def anon_api():
    return APIClient()
