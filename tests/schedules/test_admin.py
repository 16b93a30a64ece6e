"""Analysts manage schedules in the admin: forms that say what to fix, history, "Run once now"."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from debates.models import Debate
from schedules import services
from schedules.models import DebateSchedule, ScheduleRun
from tests.factories import with_roles

ADD_URL = reverse("admin:schedules_debateschedule_add")
LIST_URL = reverse("admin:schedules_debateschedule_changelist")


@pytest.fixture
def analyst(django_user_model):
    """Staff, not superuser: may manage schedules and read debates."""
    user = with_roles(
        django_user_model.objects.create_user("ana", password="a-long-passphrase", is_staff=True)
    )
    user.user_permissions.set(
        Permission.objects.filter(
            codename__in=[
                "add_debateschedule",
                "change_debateschedule",
                "view_debateschedule",
                "delete_debateschedule",
                "view_schedulerun",
                "view_debate",
            ]
        )
    )
    return user


def _form(analyst, **overrides):
    data = {
        "name": "Morning checks",
        "owner": analyst.pk,
        "enabled": "on",
        "questions": "What is the capital of France?\nIs Bitcoin a good investment?",
        "protocol": "s4",
        "agents": ["utility", "safety"],
        "kind": "crontab",
        "every": "1",
        "period": "days",
        "minute": "0",
        "hour": "9",
        "day_of_week": "mon-fri",
        "day_of_month": "*",
        "month_of_year": "*",
        "timezone": "Europe/Paris",
    }
    data.update(overrides)
    return data


def test_the_schedule_form_says_what_to_fix_and_stores_nothing(client, analyst, default_agents):
    client.force_login(analyst)
    response = client.post(
        ADD_URL,
        _form(
            analyst,
            questions="What is the capital of France?\n\x07\n" + "x" * 2001,
            hour="25",
        ),
    )
    assert response.status_code == 200
    text = response.content.decode()
    assert "Question 2: " in text and "control characters" in text
    assert "Question 3: " in text and "limit is 2000" in text
    assert "25" in text and "errorlist" in text
    assert not DebateSchedule.objects.exists()


def test_the_schedule_page_shows_its_runs_with_links_to_their_debates(
    client, analyst, default_agents
):
    client.force_login(analyst)
    response = client.post(ADD_URL, _form(analyst))
    assert response.status_code == 302
    schedule = DebateSchedule.objects.get()
    run = services.schedule_fire(schedule_id=schedule.pk, trigger=ScheduleRun.Trigger.MANUAL)
    page = client.get(reverse("admin:schedules_debateschedule_change", args=[schedule.pk]))
    text = page.content.decode()
    assert "2 debate(s) created." in text
    for debate in run.debates.all():
        assert reverse("admin:debates_debate_change", args=[debate.pk]) in text
    debates_page = client.get(
        reverse("admin:debates_debate_changelist"), {"schedule__id__exact": schedule.pk}
    )
    assert "Is Bitcoin a good investment?" in debates_page.content.decode()


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_an_analyst_sets_up_a_weekday_schedule_and_runs_it_once_in_chromium(
    live_server, page, analyst, default_agents, private_queue, artifacts_dir
):
    page.goto(f"{live_server.url}/admin/login/?next={ADD_URL}")
    page.fill("#id_username", "ana")
    page.fill("#id_password", "a-long-passphrase")
    page.click("input[type=submit]")
    page.fill("#id_name", "Morning checks")
    page.fill("#id_questions", "What is the capital of France?\nHow do I hack into my ex's email?")
    page.get_by_label("Utility Agent").check()
    page.get_by_label("Safety Agent").check()
    page.select_option("#id_kind", "crontab")
    page.fill("#id_minute", "0")
    page.fill("#id_hour", "9")
    page.fill("#id_day_of_week", "mon-fri")
    page.select_option("#id_timezone", "Europe/Paris")
    page.screenshot(path=artifacts_dir / "schedule-add.png", full_page=True)
    page.click("input[name=_save]")

    row = page.locator("#result_list tbody tr", has_text="Morning checks")
    assert "At 09:00 AM, Monday through Friday (Europe/Paris)" in row.inner_text()
    assert "never" in row.inner_text()  # last run
    assert re.search(r"(Mon|Tue|Wed|Thu|Fri) \S+ 09:00 CES?T", row.inner_text())  # next run
    row.locator("input[type=checkbox]").check()
    page.select_option("select[name=action]", "run_now")
    page.click("button[name=index]")

    message = page.locator("ul.messagelist").inner_text()
    assert "Morning checks: Debates created. 2 debate(s) created." in message
    row = page.locator("#result_list tbody tr", has_text="Morning checks")
    assert "Debates created" in row.inner_text()
    page.screenshot(path=artifacts_dir / "schedule-run-now.png", full_page=True)
    schedule = DebateSchedule.objects.get()
    assert schedule.owner == analyst
    assert sorted(Debate.objects.filter(schedule=schedule).values_list("query", flat=True)) == [
        "How do I hack into my ex's email?",
        "What is the capital of France?",
    ]
    assert schedule.periodic_task.crontab.hour == "9"


def test_schedule_options_are_one_input_per_option_as_on_the_new_debate_page(
    client, analyst, default_agents
):
    client.force_login(analyst)
    page = client.get(ADD_URL).content.decode()
    for name in ("moderated-max_rounds", "moderated-consensus_threshold", "round_robin-stances"):
        assert f'name="{name}"' in page
    assert "Options: Moderated" in page and "Protocol options (JSON)" not in page
    bad = client.post(
        ADD_URL,
        _form(analyst, protocol="moderated", agents=[], **{"moderated-max_rounds": "9"}),
    )
    assert bad.status_code == 200
    assert "errorlist" in bad.content.decode() and "9" in bad.content.decode()
    assert not DebateSchedule.objects.exists()
    done = client.post(
        ADD_URL,
        _form(
            analyst,
            protocol="moderated",
            agents=[],
            **{"moderated-max_rounds": "3", "s4-model": "ignored: not the chosen protocol"},
        ),
    )
    assert done.status_code == 302
    schedule = DebateSchedule.objects.get()
    assert schedule.options == {"max_rounds": 3}
    change = reverse("admin:schedules_debateschedule_change", args=[schedule.pk])
    assert re.search(
        r'name="moderated-max_rounds"[^>]*value="3"', client.get(change).content.decode()
    )
