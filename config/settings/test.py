"""Tests: the real PostgreSQL and Redis, on a Redis database of their own."""

import os

os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/15")
# Under pytest-xdist (`pytest -n 2`) test process gwK takes the Redis database K below
# REDIS_URL's, as pytest-django gives it a test database of its own. The processes its tests
# start (workers, commands) inherit that REDIS_URL and keep it.
if (worker := os.environ.get("PYTEST_XDIST_WORKER", "")) and os.environ.get(
    "TEST_REDIS_WORKER"
) != worker:
    base, _, db = os.environ["REDIS_URL"].rpartition("/")
    os.environ["REDIS_URL"] = f"{base}/{(int(db or 0) - int(worker.removeprefix('gw'))) % 16}"
    os.environ["TEST_REDIS_WORKER"] = worker

from .base import *  # noqa: E402, F403
from .base import env  # noqa: E402
from .envvars import env_bool, env_float, env_limit  # noqa: E402

SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="test-key-not-secret")
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
DEBATE_LLM_RETRY_BASE_DELAY = env_float("DEBATE_LLM_RETRY_BASE_DELAY", default=0.01)
DEBATE_TASK_RETRY_DELAY = env_float("DEBATE_TASK_RETRY_DELAY", default=0.2, above=True)
DEBATE_TASK_RETRY_MAX_DELAY = env_float("DEBATE_TASK_RETRY_MAX_DELAY", default=1.0, above=True)
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = env_bool("WEBHOOK_ALLOW_PRIVATE_ADDRESSES", default=True)
WEBHOOK_RETRY_BASE_DELAY = env_float("WEBHOOK_RETRY_BASE_DELAY", default=0.2, above=True)
WEBHOOK_TIMEOUT = env_float("WEBHOOK_TIMEOUT", default=5.0, above=True, maximum=300)
# Items drawn for double review at random would make tests of single reviews flaky; the tests
# of double review set their own share.
REVIEW_DOUBLE_REVIEW_SHARE = env_float(
    "REVIEW_DOUBLE_REVIEW_SHARE", default=0.0, minimum=0, maximum=1
)
# Tests start many more debates for one user than ever run (most are stored and never taken by a
# worker), and each holds its worst case until it ends; the tests of the daily limits set theirs.
BUDGET_USER_DAILY_TOKENS = env_limit("BUDGET_USER_DAILY_TOKENS", default="1000000000")
