"""Did debate help? The analytics page's charts over labelled debates ("What the debate changed",
"Calibration", "Agreement with reviewers") from debates run by the offline model and labelled
through the review queue with known outcomes: their shares, n and 95% Wilson intervals, the
sentence with the net effect, each bar's link to exactly the debates it counts (the debate
list's outcome and confidence filters select what the roll-ups count, on random debates too),
the CSV, and the relative ranges."""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import re
from collections import Counter
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core.management import call_command
from django.utils import timezone

from analytics import selectors
from analytics.selectors import Filters
from debates import running, services
from debates.models import Debate
from debates.outcomes import OUTCOMES
from protocols.question_sets import wilson_interval
from reviews import services as review_services
from reviews.models import ReviewItem
from tests.analytics.test_rollups import finish, make_debate, review
from tests.conftest import stored_for_module
from tests.debates.test_views import text_of
from tests.factories import StaffFactory

pytestmark = pytest.mark.usefixtures("default_agents")

URL = "/analytics/"
QUESTION = "Is Bitcoin a good investment?"  # the offline model decides WARN, sent to review

# (protocol, majority vote, reviewer's verdict (None: uphold), decision confidence, outcome)
CASES = [
    ("s4", "WARN", None, 0.85, "kept_right"),
    ("s4", "ACT", None, 0.82, "fixed"),
    ("s4", "ACT", None, 0.3, "fixed"),  # 0.3 * 10 is 3.0000000000000004 in floating point
    ("s4", "ACT", "ACT", 0.55, "broke"),
    ("s4", "WARN", "REFUSE", 0.05, "kept_wrong"),
    ("s4", "ACT", "REFUSE", 0.95, "changed_wrong"),
    ("s4", "", None, 1.0, "right_alone"),
    ("s4", "", "REFUSE", None, "wrong_alone"),
    ("vote", "WARN", None, 0.88, "kept_right"),
    ("vote", "WARN", "ACT", 0.81, "kept_wrong"),
    ("vote", "ACT", "ACT", 0.89, "broke"),
]


def label(debate: Debate, majority: str, override: str | None, confidence, user) -> None:
    quality = {**debate.quality, "decision_confidence": confidence}
    if confidence is None:
        quality.pop("decision_confidence", None)
    Debate.objects.filter(pk=debate.pk).update(majority_decision=majority, quality=quality)
    item = ReviewItem.objects.filter(debate=debate).first()
    review_services.review_resolve(
        item_id=item.pk,
        user=user,
        verdict="override" if override else "uphold",
        decision=override or "",
        note="Checked against the sources.",
    )


def run(query: str, user, protocol: str) -> Debate:
    debate = services.debate_create(query=query, protocol=protocol, created_by=user, enqueue=False)
    running.debate_run(debate_id=debate.id)
    return Debate.objects.get(pk=debate.pk)


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """The default agents, a staff user and the labelled debates, stored once for the
    module."""
    with stored_for_module(django_db_blocker):
        call_command("load_default_agents", stdout=open(os.devnull, "w"))
        staff = StaffFactory(username="ana")
        yield staff, _labelled(staff)


@pytest.fixture
def staff(world, db):
    return world[0]


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


@pytest.fixture
def labelled(world) -> dict[str, tuple]:
    return world[1]


def _labelled(staff) -> dict[str, tuple]:
    """The CASES as labelled debates (by id), and one debate sent to review but not labelled."""
    found = {}
    for protocol, majority, override, confidence, outcome in CASES:
        debate = run(QUESTION, staff, protocol)
        assert debate.decision == "WARN" and debate.review_status == "pending"
        label(debate, majority, override, confidence, staff)
        found[str(debate.id)] = (protocol, outcome, confidence, override is None)
    assert run(QUESTION, staff, "s4").review_status == "pending"
    return found


def chart_data(response, chart_id: str) -> dict:
    html = response.content.decode()
    marker = f'id="chart-{chart_id}-data" type="application/json">'
    return json.loads(unescape(html.split(marker)[1].split("</script>")[0]))


def band(confidence) -> int:
    return -1 if confidence is None else min(int(confidence * 10), 9)


def expected_interval(k: int, n: int) -> list[float]:
    low, high = wilson_interval(k, n)
    return [round(low, 4), round(high, 4)]


def listed(client, link: str) -> set[str]:
    """The ids of the debates the debate list shows at `link` (one page: fewer than 50)."""
    response = client.get(link)
    assert response.status_code == 200
    return set(re.findall(r'href="/debates/([0-9a-f-]{36})/"', response.content.decode()))


def test_what_the_debate_changed_shows_each_outcomes_share_with_n_and_interval(
    staff_client, labelled
):
    response = staff_client.get(URL)
    data = chart_data(response, "debate-changed")
    per_protocol = Counter(p for p, *_ in labelled.values())
    assert data["labels"] == ["s4 (n=8)", "vote (n=3)"]
    outcomes = Counter((p, o) for p, o, *_ in labelled.values())
    assert [s["label"] for s in data["series"]] == list(OUTCOMES.values())  # all seven occur
    for series, outcome in zip(data["series"], OUTCOMES, strict=True):
        for i, protocol in enumerate(("s4", "vote")):
            k, n = outcomes[(protocol, outcome)], per_protocol[protocol]
            assert series["counts"][i] == k and series["totals"][i] == n
            assert series["values"][i] == round(k / n, 4)
            assert series["intervals"][i] == expected_interval(k, n)
    text = unescape(text_of(response))
    assert "Net effect of debating (fixed minus broke): s4 +1 (2 fixed, 1 broke); vote −1" in text
    # The table says each share with its count, n and interval.
    low, high = wilson_interval(2, 8)
    assert f"25% (2 of 8; 95% interval {low:.0%} to {high:.0%})" in text


def test_calibration_shows_the_share_upheld_per_confidence_band_against_the_diagonal(
    staff_client, labelled
):
    data = chart_data(staff_client.get(URL), "calibration")
    per_band = Counter(band(c) for _, _, c, _ in labelled.values())
    upheld = Counter(band(c) for _, _, c, kept in labelled.values() if kept)
    assert data["labels"] == [f"{b * 10}-{b * 10 + 10}% (n={per_band[b]})" for b in range(10)]
    shares, diagonal = data["series"]
    assert shares["totals"] == [per_band[b] for b in range(10)]
    assert shares["counts"] == [upheld[b] for b in range(10)]
    for b in range(10):
        if per_band[b]:
            assert shares["values"][b] == round(upheld[b] / per_band[b], 4)
            assert shares["intervals"][b] == expected_interval(upheld[b], per_band[b])
        else:
            assert shares["values"][b] is None and shares["intervals"][b] is None
            assert shares["links"][b] == ""
    assert per_band[3] == 1 and per_band[8] == 5  # 0.3 is in 30-40 %; 0.8x in 80-90 %
    assert diagonal["reference"] and diagonal["straight"]
    assert diagonal["values"] == [0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.95]


def test_agreement_with_reviewers_shows_n_and_intervals(staff_client, labelled):
    data = chart_data(staff_client.get(URL), "ground-truth")
    assert data["labels"] == ["all (n=11)", "s4 (n=8)", "vote (n=3)"]
    debate = data["series"][0]
    agreed = Counter(p for p, _, _, kept in labelled.values() if kept)
    for i, (k, n) in enumerate(
        [(sum(agreed.values()), 11), (agreed["s4"], 8), (agreed["vote"], 3)]
    ):
        assert (debate["counts"][i], debate["totals"][i]) == (k, n)
        assert debate["intervals"][i] == expected_interval(k, n)


def test_each_bar_opens_the_debate_list_with_exactly_the_debates_it_counts(staff_client, labelled):
    response = staff_client.get(URL)
    html = response.content.decode()
    checked = 0
    for chart in ("debate-changed", "calibration", "ground-truth"):
        data = chart_data(response, chart)
        for series in data["series"]:
            if series["reference"]:
                continue
            for i, link in enumerate(series["links"]):
                if not link:
                    continue
                ids = listed(staff_client, link)
                if chart == "debate-changed":  # the debates of that outcome
                    assert len(ids) == series["counts"][i]
                    protocol = data["labels"][i].split(" ")[0]
                    outcome = parse_qs(urlsplit(link).query)["outcome"][0]
                    assert ids == {
                        d for d, (p, o, *_) in labelled.items() if (p, o) == (protocol, outcome)
                    }
                else:  # the labelled debates the share is of
                    n = int(re.search(r"\(n=(\d+)\)", data["labels"][i])[1])
                    assert len(ids) == n
                if chart == "calibration":
                    assert ids == {d for d, (_, _, c, _) in labelled.items() if band(c) == i}
                # The table's cell links the same, for the keyboard.
                assert f'<a href="{link.replace("&", "&amp;")}">' in html
                checked += 1
    assert checked >= 20


def test_the_api_list_filters_by_outcome_and_confidence_band_as_the_page_does(
    staff_client, staff, labelled
):
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(staff)

    def api_ids(params: dict) -> set[str]:
        response = api.get("/api/v1/debates/", {**params, "page_size": 100})
        assert response.status_code == 200, response.json()
        return {row["id"] for row in response.json()["results"]}

    checked = 0
    for outcome in {o for _, o, *_ in labelled.values()}:
        expected = {d for d, (_, o, *_) in labelled.items() if o == outcome}
        assert (
            api_ids({"outcome": outcome})
            == expected
            == listed(staff_client, f"/debates/?outcome={outcome}")
        )
        checked += 1
    for b in {band(c) for _, _, c, _ in labelled.values()} - {-1}:
        expected = {d for d, (_, _, c, _) in labelled.items() if band(c) == b}
        assert api_ids({"confidence_band": b, "review_status": "resolved"}) == expected
        checked += 1
    assert checked >= 5
    bad = api.get("/api/v1/debates/", {"outcome": "better", "confidence_band": 10})
    assert bad.status_code == 400
    assert set(bad.json()) >= {"outcome", "confidence_band"}


def test_the_debate_list_selects_what_the_rollups_count_on_random_debates(staff_client, staff):
    rng = random.Random(7)
    now = timezone.now()
    for _ in range(80):
        debate = make_debate(rng, schedules=[], now=now)
        finish(rng, debate)
        if rng.random() < 0.7:
            review(rng, debate)
    filters = Filters(since=timezone.localdate() - dt.timedelta(days=5), until=timezone.localdate())
    verdicts = selectors.verdicts(filters)
    calibration = selectors.calibration(filters)
    assert sum(verdicts.values()) > 20 and len({o for _, o in verdicts}) >= 5
    window = {"created_after": filters.since, "created_before": filters.until}
    for (protocol, outcome), n in verdicts.items():
        link = {**window, "protocol": protocol, "outcome": outcome}
        assert len(listed(staff_client, "/debates/?" + _query(link))) == n, (protocol, outcome)
    labelled = {"status": "completed", "review_status": "resolved", **window}
    for b in range(10):
        n = calibration.get((b, True), 0) + calibration.get((b, False), 0)
        found = listed(staff_client, "/debates/?" + _query({**labelled, "confidence": b}))
        assert len(found) == n, b


def _query(params: dict) -> str:
    return "&".join(f"{k}={v}" for k, v in params.items())


def test_the_csv_has_each_shares_count_n_and_interval(staff_client, labelled):
    rows = staff_client.get("/analytics/calibration.csv").content.decode().splitlines()
    assert rows[0].startswith(
        "decision confidence,decision upheld,decision upheld (count),decision upheld (n),"
        "decision upheld (95% low),decision upheld (95% high)"
    )
    band_8 = next(r for r in rows if r.startswith("80-90% (n=5)"))
    low, high = expected_interval(3, 5)
    assert band_8.split(",")[1:6] == ["0.6", "3", "5", str(low), str(high)]


def test_relative_ranges_set_the_dates_and_keep_the_other_filters(staff_client, labelled):
    today = timezone.localdate()
    html = staff_client.get(URL, {"protocol": "s4"}).content.decode()
    for label_text, days in (("Last 24 h", 2), ("Last 7 days", 7), ("Last 30 days", 30)):
        since = (today - dt.timedelta(days=days - 1)).isoformat()
        link = f'href="?protocol=s4&amp;since={since}&amp;until={today.isoformat()}"'
        assert re.search(f'{re.escape(link)}( aria-current="true")?>{label_text}<', html)
    # The default range is the last 30 days: that link is marked as the one shown.
    assert 'aria-current="true">Last 30 days<' in html
    response = staff_client.get(URL, {"since": (today - dt.timedelta(days=6)).isoformat()})
    assert 'aria-current="true">Last 7 days<' in response.content.decode()
    assert f"from {today - dt.timedelta(days=6):%Y-%m-%d} to {today:%Y-%m-%d}" in text_of(response)
    # A range the debates are not in is empty.
    old = staff_client.get(URL, {"since": "2020-01-01", "until": "2020-01-07"})
    assert chart_data(old, "debate-changed")["labels"] == []
    assert "No labelled debate in the range." in unescape(text_of(old))
