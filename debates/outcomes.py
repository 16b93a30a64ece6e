"""What a labelled debate did, and how confident its decision was, as the analytics page counts
them (docs/analysts/analytics.md, "Did debate help?"), for the debate list to filter on.

A debate is labelled when it completed and its review was resolved; the reviewers' verdict is
the override, else the decision upheld. Against the majority vote of the agents' independent
answers (`Debate.majority_decision`) the debate kept its answer (right or wrong), turned a
wrong majority right ("fixed"), turned a right majority wrong ("broke"), or changed a wrong one
into another wrong answer; without a majority vote it was only right or wrong.

The analytics roll-ups compute the same in SQL (`analytics/sql/analytics_debate_parts.sql`);
tests/analytics/test_did_debate_help.py checks that the two select the same debates.
"""

from __future__ import annotations

from django.db.models import Case, CharField, F, FloatField, Func, IntegerField, Q, Value, When
from django.db.models.fields.json import KeyTextTransform, KeyTransform
from django.db.models.functions import Cast, Floor, Greatest, Least

from reviews.models import ReviewStatus
from runs.models import RunStatus

KEPT_RIGHT = "kept_right"
KEPT_WRONG = "kept_wrong"
FIXED = "fixed"
BROKE = "broke"
CHANGED_WRONG = "changed_wrong"
RIGHT_ALONE = "right_alone"
WRONG_ALONE = "wrong_alone"

#: Each outcome in words an analyst reads, in the order the page shows them.
OUTCOMES = {
    KEPT_RIGHT: "kept the majority's right answer",
    FIXED: "fixed a wrong majority",
    BROKE: "broke a right majority",
    KEPT_WRONG: "kept the majority's wrong answer",
    CHANGED_WRONG: "changed a wrong answer to another wrong one",
    RIGHT_ALONE: "right (no majority vote)",
    WRONG_ALONE: "wrong (no majority vote)",
}
#: The outcomes where the debate's own decision was right.
RIGHT = (KEPT_RIGHT, FIXED, RIGHT_ALONE)

#: Decision confidence in bands of 10 %: 0 is 0-10 %, ..., 9 is 90-100 % (100 % included).
CONFIDENCE_BANDS = 10


def band_label(band: int) -> str:
    return f"{band * 10}-{band * 10 + 10}%"


class JSONType(Func):
    function = "jsonb_typeof"
    output_field = CharField()


def labelled() -> Q:
    return Q(status=RunStatus.COMPLETED, review_status=ReviewStatus.RESOLVED)


def outcome_expression() -> Case:
    """The outcome of a debate ("" when it is not labelled)."""
    upheld = Q(decision_override="") | Q(decision_override=F("decision"))
    no_majority = Q(majority_decision="")
    return Case(
        When(~labelled(), then=Value("")),
        When(no_majority & upheld, then=Value(RIGHT_ALONE)),
        When(no_majority, then=Value(WRONG_ALONE)),
        When(upheld & Q(majority_decision=F("decision")), then=Value(KEPT_RIGHT)),
        When(upheld, then=Value(FIXED)),
        When(majority_decision=F("decision_override"), then=Value(BROKE)),
        When(majority_decision=F("decision"), then=Value(KEPT_WRONG)),
        default=Value(CHANGED_WRONG),
        output_field=CharField(),
    )


def confidence_band_expression() -> Case:
    """The band of the decision's confidence (`quality.decision_confidence`, 0..1; -1 when it
    has none)."""
    confidence = Cast(KeyTextTransform("decision_confidence", "quality"), FloatField())
    return Case(
        When(
            Q(confidence_type="number"),
            then=Least(Greatest(Floor(confidence * 10), 0), CONFIDENCE_BANDS - 1),
        ),
        default=Value(-1),
        output_field=IntegerField(),
    )


def with_outcome(qs, outcome: str):
    return qs.alias(outcome=outcome_expression()).filter(outcome=outcome)


def with_confidence_band(qs, band: int):
    return (
        qs.alias(confidence_type=JSONType(KeyTransform("decision_confidence", "quality")))
        .alias(confidence_band=confidence_band_expression())
        .filter(confidence_band=band)
    )
