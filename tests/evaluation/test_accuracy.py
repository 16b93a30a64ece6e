"""The accuracy the evaluation pages show (`evaluation.accuracy`): Wilson score intervals against
published values, the rows of a run's figures, and two runs compared."""

from __future__ import annotations

import pytest

from evaluation.accuracy import (
    WITHIN_NOISE,
    Accuracy,
    Difference,
    compare,
    intervals_overlap,
    method_rows,
)
from protocols.question_sets import wilson_interval


# Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I, method 3
# (the Wilson score interval without continuity correction).
@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_interval_matches_published_values(k, n, low, high):
    found = wilson_interval(k, n)
    assert found == (pytest.approx(low, abs=6e-5), pytest.approx(high, abs=6e-5))


def test_wilson_interval_is_honest_at_the_edges():
    assert wilson_interval(0, 200)[1] == pytest.approx(0.0188, abs=1e-4)  # 0 of 200: up to 1.9%
    assert wilson_interval(10, 10) == (pytest.approx(0.7225, abs=1e-4), 1.0)
    assert wilson_interval(0, 0) is None


def test_an_accuracy_shows_its_share_and_interval():
    share = Accuracy.of({"n": 62, "agreed": 59, "rate": 0.9516})
    assert (share.agreed, share.n, share.percent) == (59, 62, "95.2%")
    low, high = wilson_interval(59, 62)
    assert share.interval_percent == f"{low * 100:.1f}–{high * 100:.1f}%"
    assert Accuracy.of(None).percent == "n/a" and Accuracy.of({}).interval_percent == ""


def test_overlapping_intervals_are_within_the_noise():
    a, b = Accuracy(agreed=8, n=10), Accuracy(agreed=9, n=10)
    assert intervals_overlap(a, b) is True
    diff = Difference(a, b)
    assert diff.points == pytest.approx(10.0)
    assert (diff.points_text, diff.verdict, diff.beyond_noise) == ("+10.0 pts", WITHIN_NOISE, False)


def test_a_difference_larger_than_the_intervals_is_beyond_the_noise():
    low, high = Accuracy(agreed=1, n=40), Accuracy(agreed=39, n=40)
    assert intervals_overlap(low, high) is False
    assert Difference(low, high).verdict == "B higher, beyond the noise"
    assert Difference(high, low).verdict == "B lower, beyond the noise"
    assert Difference(high, low).points == pytest.approx(-95.0)
    assert Difference(high, Accuracy()).verdict == "nothing to compare"


FIGURES_A = {
    "accuracy": {
        "debate": {"n": 10, "agreed": 9, "rate": 0.9},
        "majority": {"n": 10, "agreed": 7, "rate": 0.7},
        "single_agent": {"Risk": {"n": 10, "agreed": 5, "rate": 0.5}},
    },
    "by_category": {
        "harmful": {
            "debate": {"n": 4, "agreed": 4, "rate": 1.0},
            "majority": {"n": 4, "agreed": 3, "rate": 0.75},
            "single_agent": {"Risk": {"n": 4, "agreed": 1, "rate": 0.25}},
        },
        "factual": {
            "debate": {"n": 6, "agreed": 5, "rate": 0.8333},
            "majority": {"n": 6, "agreed": 4, "rate": 0.6667},
            "single_agent": {"Risk": {"n": 6, "agreed": 4, "rate": 0.6667}},
        },
    },
}
FIGURES_B = {
    "accuracy": {"debate": {"n": 5, "agreed": 1, "rate": 0.2}},
    "by_category": {
        "factual": {"debate": {"n": 3, "agreed": 1, "rate": 0.3333}},
        "law": {"debate": {"n": 2, "agreed": 0, "rate": 0.0}},
    },
}


def test_method_rows_list_the_baselines_only_for_a_run_that_has_them():
    rows = method_rows(FIGURES_A, with_baselines=True)
    assert [r.key for r in rows] == ["debate", "majority", "single_agent:Risk"]
    assert [(c.agreed, c.n) for c in rows[2].cells] == [(4, 6), (1, 4)]  # factual, harmful
    assert [r.key for r in method_rows(FIGURES_A, with_baselines=False)] == ["debate"]


def test_compare_takes_every_method_and_category_of_either_run():
    found = compare(FIGURES_A, FIGURES_B, a_baselines=True, b_baselines=False)
    assert found.categories == ["factual", "harmful", "law"]
    debate = found.rows[0]
    assert debate.key == "debate" and debate.overall.points == pytest.approx(-70.0)
    # 9 of 10 (59.6-98.2%) against 1 of 5 (3.6-62.4%): 70 points, and still within the noise.
    assert debate.overall.verdict == WITHIN_NOISE
    factual, harmful, law = debate.cells
    assert factual.points == pytest.approx(100 / 3 - 500 / 6)
    assert factual.verdict == WITHIN_NOISE
    assert harmful.b.n == 0 and harmful.verdict == "nothing to compare"
    assert law.a.n == 0 and law.b.n == 2
    majority = found.rows[1]
    assert (majority.overall.a.agreed, majority.overall.b.n) == (7, 0)
