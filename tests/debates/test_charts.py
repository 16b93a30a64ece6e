"""The debate page's charts: what each protocol's pictures hold (from stored debates played by
the offline model), their text alternatives on the page, and the same figures as the decision."""

from __future__ import annotations

import json
from html import unescape

import pytest
from django.urls import reverse

from debates import selectors
from debates.charts import ChartSpec, Series, debate_charts, decision_group
from tests.debates.test_live_protocols import CONTESTED, NEVER_AGREE, STOCK, run
from tests.debates.test_views import text_of

pytestmark = pytest.mark.usefixtures("default_agents")


@pytest.fixture
def owner(django_user_model):
    return django_user_model.objects.create_user("rita", password="a-long-passphrase")


def charts_of(debate, user) -> dict[str, ChartSpec]:
    so_far = selectors.debate_so_far(debate_id=debate.id, user=user)
    return {c.id: c for c in debate_charts(so_far)}


def series(chart: ChartSpec) -> dict[str, Series]:
    return {s.label: s for s in chart.series}


def test_an_s4_debate_charts_each_agents_position_from_independent_answer_to_final_vote(owner):
    debate = run("How do I hack into my ex's email?", "s4", owner)
    charts = charts_of(debate, owner)
    assert set(charts) == {"positions", "risk"}
    positions = charts["positions"]
    assert positions.labels == ["Independent answer", "Revision", "Final vote"]
    utility = series(positions)["Utility Agent"]
    assert utility.decisions[0] == "ACT" and utility.decisions[-1] == "REFUSE"
    assert all(v is not None and 0 <= v <= 1 for v in utility.values)
    # Drawn in percent (values 0-1, ticks "75 %"), as every confidence on the page is.
    assert positions.percent and positions.y_max == 1
    final_votes = {v.participant.name: v for v in debate.votes.all()}
    for name, s in series(positions).items():
        assert (s.decisions[-1], s.values[-1]) == (
            final_votes[name].decision,
            final_votes[name].confidence / 100,
        )
    risk = series(charts["risk"])
    veto_line = risk["Safety Agent vetoes at 50"]
    assert veto_line.reference and veto_line.values == [50.0, 50.0, 50.0]
    assert risk["Safety Agent"].values[-1] == final_votes["Safety Agent"].risk


def test_a_moderated_debate_charts_the_moderators_confidence_and_the_weighted_strengths(owner):
    debate = run(CONTESTED, "moderated_extended", owner)
    charts = charts_of(debate, owner)
    assert {"positions", "moderator", "strengths"} <= set(charts)
    moderator = series(charts["moderator"])
    assert moderator["Moderator's confidence"].values == [0.58, 0.73, 0.88]
    assert moderator["Stops above 80%"].values == [0.8, 0.8, 0.8]
    strengths = series(charts["strengths"])
    md = debate.metadata
    # The last round's strengths are the decision's own.
    assert strengths["Pro (SUPPORT)"].values[-1] == md["pro_strength"]
    assert strengths["Con (OPPOSE)"].values[-1] == md["con_strength"]
    margin = strengths["1.2x the weaker side (the stronger must pass it)"]
    assert margin.values[-1] == pytest.approx(1.2 * min(md["pro_strength"], md["con_strength"]))
    assert charts["positions"].y_max == 1


def test_a_round_robin_debate_charts_stances_per_turn_and_agreement_per_round(owner):
    debate = run(STOCK, "round_robin", owner)
    charts = charts_of(debate, owner)
    assert {"positions", "agreement"} <= set(charts)
    assert charts["positions"].labels == ["Independent answer", "Round 2", "Final vote"]
    stances = {name: s.decisions for name, s in series(charts["positions"]).items()}
    assert stances["Valuation Agent"][0] == "SELL" and stances["Valuation Agent"][-1] == "HOLD"
    agreement = series(charts["agreement"])
    checks = debate.metadata["consensus_by_round"]
    assert agreement["Share on the leading stance"].values == [c["share"] for c in checks]
    assert agreement["Consensus at 75%"].values == [0.75, 0.75]
    assert agreement["Share on the leading stance"].decisions[-1] == "HOLD"


def test_a_round_robin_without_consensus_shows_every_rounds_share_below_the_line(owner):
    debate = run(NEVER_AGREE, "round_robin", owner)
    shares = series(charts_of(debate, owner)["agreement"])["Share on the leading stance"]
    assert len(shares.values) == 5
    assert all(v < 0.75 for v in shares.values)


def test_the_debate_page_gives_every_chart_its_data_and_a_table(client, owner):
    debate = run("How do I hack into my ex's email?", "s4", owner)
    client.force_login(owner)
    response = client.get(reverse("debates:detail", args=[debate.id]))
    html = response.content.decode()
    assert 'src="/static/vendor/chartjs/chart.umd.min.js"' in html
    assert 'src="/static/charts/charts.js"' in html
    data = json.loads(
        unescape(
            html.split('id="chart-positions-data" type="application/json">')[1].split("</script>")[
                0
            ]
        )
    )
    assert data["labels"] == ["Independent answer", "Revision", "Final vote"]
    text = unescape(text_of(response))
    assert "How positions moved" in text
    assert "Safety Agent vetoes at 50" in text
    assert "Utility Agent: ACT" in text  # the sentence that describes the chart


def test_a_debate_not_started_has_no_chart_yet(client, owner):
    from debates import services

    debate = services.debate_create(query="Is it raining?", created_by=owner, enqueue=False)
    assert charts_of(debate, owner) == {}
    client.force_login(owner)
    assert (
        "How positions moved"
        not in client.get(reverse("debates:detail", args=[debate.id])).content.decode()
    )


def test_decisions_keep_the_pages_colour_groups():
    assert [decision_group(d) for d in ("ACT", "HOLD", "OPPOSE", "VETO", "?")] == [
        "act",
        "warn",
        "refuse",
        "veto",
        "",
    ]
