"""What a contradiction run accepts, checked the same way at every door (API, admin, command).

The serializers check each field and say what to fix, per field and per position
(``reports[1].findings[0].value``); `check_reports` checks the whole (how many reports and
claims, one report per agent) and is run again by the service, so nothing half-valid is ever
stored. Validated input becomes `ReportInput` / `FindingInput` dataclasses.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Context, Decimal
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.fields import StrictFloatField
from contradictions.detection import normalise_metric

MAX_VALUE = Decimal(10) ** 20
VALUE_PLACES = Decimal("1e-10")
# Room for every stored digit (20 before the point, 10 after): the default context's 28 digits
# would make quantizing a value of 10^18 or more raise InvalidOperation.
VALUE_CONTEXT = Context(prec=40)


@dataclass(frozen=True)
class FindingInput:
    metric: str
    value: Decimal | None = None
    unit: str = ""
    citation: str = ""
    source: str = ""
    period: str = ""
    confidence: float | None = None
    interpretation: str = ""
    text: str = ""


@dataclass(frozen=True)
class ReportInput:
    agent: str
    confidence: float
    findings: tuple[FindingInput, ...]


# --- fields -------------------------------------------------------------------------------------


class _TypedMixin:
    expected = "a string"

    def _type_error(self, data):
        raise serializers.ValidationError(f"Expected {self.expected}, got {type(data).__name__}.")


class TextField(_TypedMixin, serializers.CharField):
    """A string, and only a string (42 is a wrong type, not the text "42"), stripped. Its
    length is checked as sent, as the schema's maxLength says."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self._type_error(data)
        if self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return super().to_internal_value(data)


@extend_schema_field(
    {"type": "number", "nullable": True, "minimum": -1e20, "maximum": 1e20, "example": 0.12}
)
class ValueField(serializers.Field):
    """A finite JSON number below 10^20 in magnitude, kept as a Decimal (10 decimal places)."""

    default_error_messages = {
        "type": "Expected a number (e.g. 0.12), got {kind}. Leave it out (or null) for a "
        "qualitative claim.",
        "finite": "The value must be a finite number.",
        "range": "The value must be smaller than 10^20 in magnitude.",
    }

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("type", kind=type(data).__name__)
        if isinstance(data, float) and not math.isfinite(data):
            self.fail("finite")
        value = Decimal(data) if isinstance(data, int) else Decimal(repr(data))
        if abs(value) >= MAX_VALUE:
            self.fail("range")
        return value.quantize(VALUE_PLACES, rounding=ROUND_HALF_EVEN, context=VALUE_CONTEXT)

    def to_representation(self, value):
        return None if value is None else float(value)


class UnitIntervalField(serializers.FloatField):
    """A confidence between 0 and 1 inclusive; true/false or "0.9" are wrong types."""

    default_error_messages = {
        "type": "Expected a number between 0 and 1 (e.g. 0.85), got {kind}.",
        "min_value": "Confidence is between 0 and 1 (e.g. 0.85); {min_value} is the least.",
        "max_value": "Confidence is between 0 and 1 (e.g. 0.85), not a percentage; at most "
        "{max_value}.",
    }

    def __init__(self, **kwargs):
        kwargs.setdefault("min_value", 0.0)
        kwargs.setdefault("max_value", 1.0)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("type", kind=type(data).__name__)
        return super().to_internal_value(data)


# --- serializers --------------------------------------------------------------------------------


class FindingInputSerializer(serializers.Serializer):
    metric = TextField(
        max_length=200,
        help_text="What the claim is about, e.g. qatar_unemployment_rate. Matched after "
        "normalising case, spaces, underscores and hyphens.",
        error_messages={
            "required": "Name the metric this claim is about (e.g. qatar_unemployment_rate).",
            "blank": "Name the metric this claim is about (e.g. qatar_unemployment_rate).",
        },
    )
    value = ValueField(
        required=False,
        allow_null=True,
        default=None,
        help_text="The number claimed; null or absent for a qualitative claim.",
    )
    unit = TextField(
        max_length=30,
        required=False,
        allow_blank=True,
        default="",
        help_text='e.g. "%", "USD", "persons".',
    )
    citation = TextField(max_length=2000, required=False, allow_blank=True, default="")
    source = TextField(
        max_length=200,
        required=False,
        allow_blank=True,
        default="",
        help_text="e.g. GCC-STAT, World Bank.",
    )
    period = TextField(
        max_length=50,
        required=False,
        allow_blank=True,
        default="",
        help_text="e.g. Q1-2024, 2024, H2 2023, 2024-03.",
    )
    confidence = UnitIntervalField(
        required=False,
        allow_null=True,
        default=None,
        help_text="0-1; absent: the report's confidence.",
    )
    interpretation = TextField(
        max_length=50,
        required=False,
        allow_blank=True,
        default="",
        help_text="e.g. improving, declining, stable.",
    )
    text = TextField(
        max_length=2000,
        required=False,
        allow_blank=True,
        default="",
        help_text="The claim as the agent wrote it.",
    )

    def validate_metric(self, value: str) -> str:
        if not normalise_metric(value):
            raise serializers.ValidationError(
                "The metric name needs letters or digits (e.g. qatar_unemployment_rate)."
            )
        return value

    def validate(self, attrs):
        if attrs.get("value") is None:
            if attrs.get("unit"):
                raise serializers.ValidationError(
                    {"value": "A number is required when a unit is given (e.g. 0.12)."}
                )
            if not attrs.get("interpretation"):
                raise serializers.ValidationError(
                    {
                        "value": "Give a value, or an interpretation for a qualitative claim: "
                        "this finding claims nothing."
                    }
                )
        return attrs


class ReportInputSerializer(serializers.Serializer):
    agent = TextField(
        max_length=100,
        help_text="The agent that wrote the report.",
        error_messages={
            "required": "Name the agent that wrote this report.",
            "blank": "Name the agent that wrote this report.",
        },
    )
    confidence = UnitIntervalField(help_text="The agent's confidence in its report, 0-1.")
    findings = FindingInputSerializer(
        many=True,
        allow_empty=False,
        error_messages={
            "empty": "A report needs at least one finding.",
            "not_a_list": "Expected a list of findings, got {input_type}.",
        },
    )


class RunCreateSerializer(serializers.Serializer):
    reports = ReportInputSerializer(
        many=True,
        required=False,
        allow_empty=False,
        help_text="1 or more agent reports. Optional when `debate` is given: the reports are "
        "then taken from the debate's agents.",
        error_messages={
            "empty": "Give at least one report.",
            "not_a_list": "Expected a list of reports, got {input_type}.",
        },
    )
    debate = serializers.UUIDField(
        required=False, help_text="A completed debate of yours the reports come from."
    )
    value_threshold = StrictFloatField(
        required=False,
        min_value=0.001,
        max_value=1.0,
        help_text="Relative gap above which values conflict (default 0.05: 5 %).",
    )
    confidence_gap = StrictFloatField(
        required=False,
        min_value=0.01,
        max_value=1.0,
        help_text="Confidence difference at which the same claim is contested (default 0.3).",
    )

    def validate(self, attrs):
        if not attrs.get("reports") and not attrs.get("debate"):
            raise serializers.ValidationError(
                {"reports": "Give at least one report (or a debate to take the reports from)."}
            )
        if attrs.get("reports"):
            try:
                check_reports(to_inputs(attrs["reports"]))
            except ValidationError as exc:
                raise serializers.ValidationError(exc.message_dict) from None
        return attrs


# --- the whole ----------------------------------------------------------------------------------


def to_inputs(reports: Sequence[Mapping[str, Any]]) -> list[ReportInput]:
    return [
        ReportInput(
            agent=r["agent"],
            confidence=float(r["confidence"]),
            findings=tuple(FindingInput(**dict(f)) for f in r["findings"]),
        )
        for r in reports
    ]


def check_reports(reports: Sequence[ReportInput]) -> None:
    """The limits and invariants of a run's input as a whole. Raises `ValidationError`."""
    if not reports:
        raise ValidationError({"reports": "Give at least one report."})
    limit = settings.CONTRADICTION_MAX_REPORTS
    if len(reports) > limit:
        raise ValidationError(
            {"reports": f"Too many reports: {len(reports)}; a run takes at most {limit}."}
        )
    claims = sum(len(r.findings) for r in reports)
    limit = settings.CONTRADICTION_MAX_CLAIMS
    if claims > limit:
        raise ValidationError(
            {
                "reports": f"Too many claims: {claims}; a run takes at most {limit}. Split them "
                "into several runs."
            }
        )
    seen: set[str] = set()
    for report in reports:
        name = report.agent.strip().lower()
        if name in seen:
            raise ValidationError(
                {
                    "reports": f"Each agent reports once: {report.agent!r} appears twice. Put all "
                    "its findings in one report."
                }
            )
        seen.add(name)
        if not report.findings:
            raise ValidationError({"reports": f"The report of {report.agent!r} has no findings."})
        for f in report.findings:
            if f.value is None and not f.interpretation:
                raise ValidationError(
                    {
                        "reports": f"A finding of {report.agent!r} on {f.metric!r} claims nothing: "
                        "give a value or an interpretation."
                    }
                )


def flatten_errors(detail: Any, prefix: str = "") -> list[str]:
    """DRF's nested errors as lines: ``reports[1].findings[0].value: Expected a number ...``."""
    lines: list[str] = []
    if isinstance(detail, Mapping):
        for key, value in detail.items():
            name = prefix if key == "non_field_errors" else (f"{prefix}.{key}" if prefix else key)
            lines += flatten_errors(value, name)
    elif isinstance(detail, list):
        if all(isinstance(v, str) for v in detail):
            lines += [f"{prefix}: {v}" if prefix else str(v) for v in detail]
        else:
            for i, value in enumerate(detail):
                if value:
                    lines += flatten_errors(value, f"{prefix}[{i}]")
    else:
        lines.append(f"{prefix}: {detail}" if prefix else str(detail))
    return lines


def parse_payload(data: Any) -> dict[str, Any]:
    """Validate a run's input given as plain data (a JSON file, the admin's text box): either a
    list of reports or ``{"reports": [...], "value_threshold": ...}``. Raises `ValidationError`
    with one line per problem."""
    if isinstance(data, list):
        data = {"reports": data}
    if not isinstance(data, Mapping):
        raise ValidationError(
            [f'Expected a list of reports, or an object with "reports": got {type(data).__name__}.']
        )
    serializer = RunCreateSerializer(data=dict(data))
    if not serializer.is_valid():
        raise ValidationError(flatten_errors(serializer.errors))
    validated = dict(serializer.validated_data)
    if "reports" in validated:
        validated["reports"] = to_inputs(validated["reports"])
    return validated
