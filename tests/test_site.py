"""Site-wide behaviour: settings modes, the admin, login in a real browser."""

import os
import subprocess
import sys

import pytest
from django.urls import reverse

from debates import running, services
from tests.conftest import ROOT, STRONG_KEY


@pytest.mark.slow
def test_production_settings_refuse_to_start_without_a_secret_key():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SECRET_KEY"}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.production"
    env["DJANGO_ALLOWED_HOSTS"] = "example.org"
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY is not set" in result.stderr


@pytest.mark.slow
def test_production_settings_start_with_a_secret_key():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": STRONG_KEY,
        "DJANGO_ALLOWED_HOSTS": "example.org",
    }
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from django.conf import settings; "
            "print(settings.DEBUG, settings.SESSION_COOKIE_SECURE)",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False True"


def test_admin_shows_debates_with_filters_and_a_read_only_transcript(admin_client, default_agents):
    debate = services.debate_create(query="Is Bitcoin a good investment?", enqueue=False)
    running.debate_run(debate_id=debate.id)
    changelist = admin_client.get(
        reverse("admin:debates_debate_changelist"), {"consensus_type": "split"}
    )
    assert changelist.status_code == 200
    assert "Is Bitcoin a good investment?" in changelist.content.decode()
    page = admin_client.get(reverse("admin:debates_debate_change", args=[debate.id]))
    text = page.content.decode()
    assert page.status_code == 200
    assert "LLM calls (raw output)" in text
    assert "Too many unknowns for a confident prediction" in text  # raw reply of Accuracy
    assert 'name="_save"' not in text  # read-only
    agents = admin_client.get(reverse("admin:agents_agent_changelist"))
    assert "Safety Agent" in agents.content.decode()


def test_admin_search_finds_debates_by_question(admin_client, default_agents):
    services.debate_create(query="Is it raining in Paris?", enqueue=False)
    services.debate_create(query="What is the capital of France?", enqueue=False)
    response = admin_client.get(reverse("admin:debates_debate_changelist"), {"q": "Paris"})
    text = response.content.decode()
    assert "Is it raining in Paris?" in text
    assert "What is the capital of France?" not in text


@pytest.mark.django_db(transaction=True)
def test_a_user_logs_in_through_the_login_page_in_chromium(live_server, page, django_user_model):
    django_user_model.objects.create_user("ana", password="a-long-passphrase")
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", "ana")
    page.fill("#id_password", "a-long-passphrase")
    page.click("button[type=submit]")
    page.wait_for_load_state()
    page.goto(f"{live_server.url}/accounts/login/")
    assert page.locator("header.site").inner_text().count("Log out ana") == 1
