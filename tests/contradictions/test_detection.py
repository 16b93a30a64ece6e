"""Detection rules (pure): values, readings, confidence, sources, units, severity, grouping."""

from __future__ import annotations

from decimal import Decimal as D
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contradictions.detection import (
    CONFIDENCE_GAP,
    INTERPRETATION_CONFLICT,
    SOURCE_CONFLICT,
    VALUE_GAP,
    Claim,
    Thresholds,
    compare,
    detect,
    normalise_metric,
    read_interpretation,
    relative_gap,
)


def c(
    ref,
    value,
    *,
    report=None,
    agent=None,
    metric="unemployment",
    unit="%",
    source="GCC-STAT",
    period="2024",
    confidence=0.7,
    interpretation="",
):
    return Claim(
        ref=ref,
        report=report if report is not None else ref,
        agent=agent or f"A{ref}",
        metric=metric,
        value=None if value is None else D(str(value)),
        unit=unit,
        source=source,
        period=period,
        confidence=confidence,
        interpretation=interpretation,
    )


def rules_of(a, b, **kw):
    pair = compare(a, b, Thresholds(**kw)) if kw else compare(a, b)
    return None if pair is None else pair.rules


# --- metric names -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "Qatar Unemployment Rate",
        "qatar_unemployment_rate",
        " QATAR  unemployment-rate ",
        "Qatar.Unemployment__Rate",
    ],
)
def test_metric_names_match_whatever_their_case_spacing_and_underscores(name):
    assert normalise_metric(name) == "qatar_unemployment_rate"


def test_claims_on_differently_spelt_metrics_are_compared():
    found = detect(
        [c(1, 0.10, metric="Qatar unemployment rate"), c(2, 0.12, metric="QATAR_UNEMPLOYMENT_RATE")]
    )
    assert [x.metric_key for x in found.contradictions] == ["qatar_unemployment_rate"]


def test_claims_on_different_metrics_are_never_compared():
    assert (
        detect([c(1, 0.10, metric="unemployment"), c(2, 9.0, metric="inflation")]).contradictions
        == ()
    )


# --- values -------------------------------------------------------------------------------------


def test_values_more_than_five_percent_apart_conflict_and_closer_ones_agree():
    assert rules_of(c(1, 100), c(2, 106)) == (VALUE_GAP,)
    assert rules_of(c(1, 100), c(2, 104)) is None


def test_a_gap_of_exactly_the_threshold_is_not_more_than_it():
    # 100 against 95: |5| / 100 = 5 % exactly.
    assert relative_gap(D(100), D(95)) == D("0.05")
    assert rules_of(c(1, 100), c(2, 95)) is None
    assert rules_of(c(1, 100), c(2, D("94.99"))) == (VALUE_GAP,)


def test_the_threshold_is_configurable():
    assert rules_of(c(1, 100), c(2, 108), value_threshold=D("0.10")) is None
    assert rules_of(c(1, 100), c(2, 102), value_threshold=D("0.01")) == (VALUE_GAP,)


def test_two_zeros_agree_and_zero_against_anything_else_is_a_full_gap():
    assert rules_of(c(1, 0), c(2, 0)) is None
    pair = compare(c(1, 0), c(2, D("0.001")))
    assert pair.rules == (VALUE_GAP,) and pair.relative_gap == 1


def test_negative_values_are_compared_by_magnitude_and_opposite_signs_conflict():
    assert rules_of(c(1, -2.0), c(2, -2.05)) is None
    assert compare(c(1, -2), c(2, 2)).relative_gap == 2
    assert compare(c(1, -2), c(2, 2)).severity == "high"


def test_units_are_normalised_and_different_units_are_not_compared_but_noted():
    assert rules_of(c(1, 10, unit="%"), c(2, 10, unit="percent")) is None
    assert rules_of(c(1, 10, unit="%"), c(2, 20, unit="PCT")) == (VALUE_GAP,)
    found = detect([c(1, 10, unit="USD bn"), c(2, 38, unit="QAR bn")])
    assert found.contradictions == ()
    assert "different units" in found.notes[0] and "not compared" in found.notes[0]


def test_a_claim_without_a_unit_takes_the_metrics_unit():
    assert rules_of(c(1, 10, unit=""), c(2, 20, unit="%")) == (VALUE_GAP,)


def test_claims_of_the_same_report_never_contradict_each_other():
    found = detect(
        [c(1, 0.10, report="r1", period="Q1-2024"), c(2, 0.20, report="r1", period="Q2-2024")]
    )
    assert found.contradictions == ()


# --- readings, confidence, sources ---------------------------------------------------------------


def test_improving_against_declining_is_a_conflicting_interpretation():
    pair = compare(c(1, None, interpretation="improving"), c(2, None, interpretation="Declining"))
    assert pair.rules == (INTERPRETATION_CONFLICT,)
    assert pair.severity == "medium"


def test_stable_against_a_trend_is_a_milder_conflict_and_words_off_every_scale_are_not_read():
    assert (
        compare(
            c(1, None, interpretation="stable"), c(2, None, interpretation="slightly declining")
        ).severity
        == "low"
    )
    assert (
        rules_of(c(1, None, interpretation="resilient"), c(2, None, interpretation="declining"))
        is None
    )
    assert read_interpretation("not improving") is None


def test_the_same_claim_at_very_different_confidence_is_contested():
    pair = compare(c(1, 0.10, confidence=0.9), c(2, 0.10, confidence=0.5))
    assert pair.rules == (CONFIDENCE_GAP,)
    assert pair.severity == "low"
    assert rules_of(c(1, 0.10, confidence=0.9), c(2, 0.10, confidence=0.7)) is None


def test_differing_values_from_different_sources_are_a_source_conflict():
    assert rules_of(c(1, 0.10, source="GCC-STAT"), c(2, 0.12, source="World Bank")) == (
        VALUE_GAP,
        SOURCE_CONFLICT,
    )
    assert rules_of(c(1, 0.10, source="GCC-STAT"), c(2, 0.12, source="gcc stat")) == (VALUE_GAP,)


# --- severity -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "confidences", "severity"),
    [
        (100, 110, (0.7, 0.7), "low"),  # 9.1 %
        (100, 120, (0.7, 0.7), "medium"),  # 16.7 %
        (100, 300, (0.7, 0.7), "high"),  # 66.7 %
        (100, 120, (0.9, 0.85), "high"),  # medium, both confident: one level up
        (100, 120, (0.9, 0.4), "low"),  # medium, a weak claim: one level down
        (100, 300, (0.4, 0.9), "medium"),
    ],
)
def test_severity_follows_the_gap_and_the_confidences(a, b, confidences, severity):
    pair = compare(c(1, a, confidence=confidences[0]), c(2, b, confidence=confidences[1]))
    assert pair.severity == severity


# --- grouping -----------------------------------------------------------------------------------


def test_three_agents_on_one_metric_give_one_case_with_only_the_pairs_that_conflict():
    found = detect([c(1, 0.10), c(2, 0.10), c(3, 0.15)])
    [case] = found.contradictions
    assert case.is_multiway
    assert [x.ref for x in case.claims] == [1, 2, 3]
    assert {frozenset((p.first, p.second)) for p in case.pairs} == {
        frozenset((1, 3)),
        frozenset((2, 3)),
    }


def test_agreeing_reports_give_no_contradiction():
    found = detect(
        [
            c(1, 0.10, confidence=0.9),
            c(2, 0.101, confidence=0.85, unit="percent"),
            c(3, 0.1, confidence=0.8, metric="UNEMPLOYMENT"),
        ]
    )
    assert found.contradictions == ()


# --- properties ---------------------------------------------------------------------------------

values = st.decimals(
    min_value=-(10**6), max_value=10**6, allow_nan=False, allow_infinity=False, places=4
)
confidences = st.floats(min_value=0, max_value=1)


@settings(max_examples=200, deadline=None)
@given(values, values, confidences, confidences)
def test_values_conflict_exactly_when_the_relative_gap_exceeds_the_threshold(a, b, ca, cb):
    larger = max(abs(Fraction(a)), abs(Fraction(b)))
    gap = Fraction(0) if larger == 0 else abs(Fraction(a) - Fraction(b)) / larger
    pair = compare(c(1, a, confidence=ca), c(2, b, confidence=cb))
    fired = pair is not None and VALUE_GAP in pair.rules
    assert fired == (gap > Fraction(1, 20))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(values, confidences), min_size=2, max_size=5))
def test_detection_does_not_depend_on_the_order_of_the_reports(claims):
    forward = [c(i, v, confidence=conf) for i, (v, conf) in enumerate(claims)]

    def summary(found):
        return {
            (frozenset((p.first, p.second)), p.rules, p.severity)
            for case in found.contradictions
            for p in case.pairs
        }

    assert summary(detect(forward)) == summary(detect(list(reversed(forward))))


@settings(max_examples=100, deadline=None)
@given(values, st.lists(confidences, min_size=2, max_size=6))
def test_reports_that_agree_never_contradict(value, confs):
    spread = max(confs) - min(confs)
    claims = [c(i, value, confidence=conf) for i, conf in enumerate(confs)]
    found = detect(claims)
    if spread < 0.3 - 1e-9:
        assert found.contradictions == ()
    else:
        assert all(case.rules == (CONFIDENCE_GAP,) for case in found.contradictions)


@settings(max_examples=100, deadline=None)
@given(values, values, st.sampled_from([D(1), D(10), D(1000), D("0.01")]))
def test_scaling_both_values_changes_nothing(a, b, k):
    one = compare(c(1, a), c(2, b))
    scaled = compare(c(1, a * k), c(2, b * k))
    assert (one is None) == (scaled is None)
    if one is not None:
        assert one.rules == scaled.rules and one.severity == scaled.severity
