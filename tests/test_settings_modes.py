"""Settings modes, checked the way a deployment starts: the settings module in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT, STRONG_KEY

# Each test starts Python processes, as a deployment starts.
pytestmark = pytest.mark.slow


def run(code: str = "", *, args=None, **env_vars) -> subprocess.CompletedProcess:
    # A clean start: none of the test session's own settings (the browser tests set
    # DJANGO_ALLOW_ASYNC_UNSAFE, which `check --deploy` rightly refuses).
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            "DJANGO_SETTINGS_MODULE",
            "DJANGO_SECRET_KEY",
            "DJANGO_DEBUG",
            "DJANGO_ALLOW_ASYNC_UNSAFE",
        )
    }
    env.update(env_vars)
    return subprocess.run(
        args or [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


PRODUCTION = {
    "DJANGO_SETTINGS_MODULE": "config.settings.production",
    "DJANGO_SECRET_KEY": STRONG_KEY,
    "DJANGO_ALLOWED_HOSTS": "example.org",
    # Production refuses the scripted offline model as the default (agents.E002).
    "DEBATE_DEFAULT_MODEL": "openai/gpt-4o-mini",
    # A database that exists on every server: `check` reads its version (generated columns).
    "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/postgres",
}
SHOW = "; from django.conf import settings; print(settings.SETTINGS_MODULE, settings.DEBUG)"


@pytest.mark.parametrize(
    "entry_point",
    [
        "import config.wsgi",
        "import config.asgi",
        "import django, config.celery; django.setup()",
    ],
)
def test_servers_and_workers_default_to_production_settings(entry_point):
    without_key = run(entry_point)
    assert without_key.returncode != 0
    assert "DJANGO_SECRET_KEY is not set" in without_key.stderr

    started = run(
        entry_point + SHOW, DJANGO_SECRET_KEY=STRONG_KEY, DJANGO_ALLOWED_HOSTS="example.org"
    )
    assert started.returncode == 0, started.stderr
    assert started.stdout.split() == ["config.settings.production", "False"]


def test_manage_py_and_an_explicit_variable_choose_local_settings():
    manage = run(
        args=[
            sys.executable,
            "manage.py",
            "shell",
            "-c",
            "from django.conf import settings; print(settings.SETTINGS_MODULE)",
        ]
    )
    assert manage.returncode == 0, manage.stderr
    assert manage.stdout.split()[-1] == "config.settings.local"
    wsgi = run("import config.wsgi" + SHOW, DJANGO_SETTINGS_MODULE="config.settings.local")
    assert wsgi.stdout.split() == ["config.settings.local", "True"]


def test_production_refuses_a_weak_secret_key():
    keys = ["changeme", "x" * 64, "django-insecure-" + STRONG_KEY, STRONG_KEY[:49]]
    results = start_each(PRODUCTION, [{"DJANGO_SECRET_KEY": key} for key in keys])
    for key, result in zip(keys, results, strict=True):
        assert result.startswith("ImproperlyConfigured: DJANGO_SECRET_KEY is too weak"), key


def test_check_deploy_passes_with_no_warning_on_the_production_defaults():
    result = run(
        args=[sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        **PRODUCTION,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_hsts_defaults_are_overridable_and_check_deploy_then_says_so():
    result = run(
        args=[sys.executable, "manage.py", "check", "--deploy"],
        DJANGO_SECURE_HSTS_PRELOAD="false",
        DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS="no",
        **PRODUCTION,
    )
    assert result.returncode == 0, result.stderr
    assert "security.W005" in result.stderr and "security.W021" in result.stderr
    shown = run(
        "import django; django.setup()" + "; from django.conf import settings as s; "
        "print(s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_INCLUDE_SUBDOMAINS, "
        "s.SECURE_HSTS_PRELOAD)",
        **PRODUCTION,
    )
    assert shown.stdout.split() == ["31536000", "True", "True"]


def test_a_boolean_that_is_not_one_stops_the_start_naming_the_variable():
    not_booleans = {
        "DJANGO_DEBUG": "ture",
        "DJANGO_SECURE_SSL_REDIRECT": "ture",
        "WEBHOOK_ALLOW_PRIVATE_ADDRESSES": "ture",
    }
    modules = ["config.settings.local", "config.settings.test", "config.settings.production"]
    cases = [{"DJANGO_SETTINGS_MODULE": module, **not_booleans} for module in modules]
    for module, result in zip(modules, start_each(PRODUCTION, cases), strict=True):
        assert result.startswith("ImproperlyConfigured: "), (module, result)
        assert "='ture' is not a boolean" in result, (module, result)
    # And in a start as a server makes it, the process stops with the same words.
    result = run("import django; django.setup()", **{**PRODUCTION, **not_booleans})
    assert result.returncode != 0
    assert "='ture' is not a boolean" in result.stderr


def test_the_boolean_words_are_read_whatever_the_case():
    words = {"TRUE": "True", " off ": "False", "1": "True", "no": "False", "Yes": "True"}
    local = {"DJANGO_SETTINGS_MODULE": "config.settings.local"}
    cases = [{"DJANGO_DEBUG": raw} for raw in words]
    assert start_each(local, cases, show="DEBUG") == list(words.values())


def test_every_response_carries_the_content_security_policy():
    result = run(
        "import django; django.setup(); from django.test import Client; "
        "r = Client().get('/accounts/login/', secure=True, HTTP_HOST='example.org'); "
        "print(r.status_code); print(r.headers['Content-Security-Policy'])",
        **PRODUCTION,
    )
    assert result.returncode == 0, result.stderr
    status, policy = result.stdout.strip().splitlines()
    assert status == "200"
    assert "default-src 'self'" in policy and "script-src 'self' 'nonce-" in policy
    assert "'unsafe-inline'" not in policy


# Each case's variables set in turn in one process, the settings module imported anew for each
# (it reads the environment when imported): what it started with, or why it refused.
START_EACH_WITH = """
import importlib, json, os, sys
results = []
for case in json.loads(sys.argv[1]):
    saved = {name: os.environ.get(name) for name in case}
    os.environ.update(case)
    for module in [m for m in sys.modules if m.startswith("config.settings")]:
        del sys.modules[module]
    try:
        settings = importlib.import_module(os.environ["DJANGO_SETTINGS_MODULE"])
        results.append(str(getattr(settings, sys.argv[2])) if sys.argv[2] else "started")
    except Exception as exc:
        results.append(f"{type(exc).__name__}: {exc}")
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
print(json.dumps(results))
"""


def start_each(env: dict[str, str], cases: list[dict[str, str]], *, show: str = "") -> list[str]:
    import json

    started = run(args=[sys.executable, "-c", START_EACH_WITH, json.dumps(cases), show], **env)
    assert started.returncode == 0, started.stderr
    return json.loads(started.stdout)


# --- strict settings: every number, price, rate and timeout checked at start-up ---------------

# Each case alone, as a deployment would set it: the variable, its value, what the refusal says.
REFUSED = [
    ("BUDGET_MODEL_PRICES", '{"openai/m": {"input": -1, "output": 2}}', "0 or more"),
    ("BUDGET_MODEL_PRICES", '{"openai/m": {"input": NaN, "output": 2}}', "NaN is not a price"),
    ("BUDGET_MODEL_PRICES", '{"openai/m": {"in": 1}}', '{"input": ..., "output": ...}'),
    ("BUDGET_MODEL_PRICES", "[1, 2]", "not an object"),
    ("DEBATE_API_CREATE_RATE", "abc", "<number>/<second|minute|hour|day>"),
    ("WEBHOOK_PING_RATE", "0/minute", "the number 1 or more"),
    ("LOGIN_FAILURE_LIMIT", "0", "a whole number 1 or more"),
    ("LOGIN_LOCKOUT_MINUTES", "-3", "a whole number 1 or more"),
    ("REVIEW_ENQUEUE_REASONS", "", "at least one name"),
    ("WEBHOOK_TIMEOUT", "nan", "a number more than 0"),
    ("WEBHOOK_TIMEOUT", "0", "a number more than 0"),
    ("DEBATE_LLM_TIMEOUT", "-1", "a number more than 0"),
    ("DEBATE_HEARTBEAT_TIMEOUT", "0", "a whole number 1 or more"),
    ("DEBATE_HEARTBEAT_INTERVAL", "20", "at most 15"),
    ("DEBATE_SWEEP_INTERVAL", "-30", "a whole number 1 or more"),
    ("BUDGET_HOLD_TIMEOUT", "0", "60 or more"),
    ("DEBATE_TASK_TIME_LIMIT", "600", "601 or more"),
    ("DEBATE_MAX_CONCURRENT_CALLS", "0", "1 or more"),
    ("CONTRADICTION_MIN_CONFIDENCE", "1.5", "from 0 to 1"),
    ("METRICS_QUERY_TIMEOUT", "inf", "a number more than 0"),
    ("DEBATE_MODEL_GROUPS", "{not json", "a JSON object"),
    ("BUDGET_DEBATE_MAX_TOKENS", "-5", "a whole number (0 or more)"),
]


@pytest.mark.parametrize(
    "module", ["config.settings.local", "config.settings.test", "config.settings.production"]
)
def test_every_bad_number_price_rate_or_timeout_stops_the_start_naming_the_variable(module):
    cases = [*REFUSED]
    if module.endswith("production"):
        cases.append(("DJANGO_SECURE_HSTS_SECONDS", "-1", "a whole number from 0 to"))
    results = start_each(
        {**(PRODUCTION if module.endswith("production") else {}), "DJANGO_SETTINGS_MODULE": module},
        [{name: value} for name, value, _ in cases],
    )
    for (name, value, says), result in zip(cases, results, strict=True):
        assert result.startswith(f"ImproperlyConfigured: {name}"), (name, value, result)
        assert says in result, (name, value, result)


def test_good_values_start_and_are_read_as_numbers():
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.DEBATE_API_CREATE_RATE, s.WEBHOOK_TIMEOUT, s.BUDGET_MODEL_PRICES, "
        "s.REVIEW_ENQUEUE_REASONS)"
    )
    started = run(
        code,
        DJANGO_SETTINGS_MODULE="config.settings.local",
        DEBATE_API_CREATE_RATE="5/min",
        WEBHOOK_TIMEOUT="2.5",
        BUDGET_MODEL_PRICES='{"openai/m": {"input": 0.15, "output": 0.6}}',
        REVIEW_ENQUEUE_REASONS="safety_veto, debate_failed",
    )
    assert started.returncode == 0, started.stderr
    assert started.stdout.split("\n")[-2] == (
        "5/minute 2.5 {'openai/m': {'input': 0.15, 'output': 0.6}} ['safety_veto', 'debate_failed']"
    )
