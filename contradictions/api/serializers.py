"""Contradiction runs over the API: what clients send (see `contradictions.inputs`) and what
they get back. No business logic."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from agents.api.fields import ModelErrorField
from api.fields import BlankAsNullCharField, FilterChoiceField
from contradictions.inputs import ValueField
from contradictions.models import (
    AgentReport,
    ArbitrationCall,
    Contradiction,
    ContradictionRun,
    Finding,
    Resolution,
)

RUN_STATUSES = ContradictionRun.Status.values
REVIEW_STATUSES = ["none", *(c for c in ContradictionRun.ReviewStatus.values if c)]


def run_url(request, run: ContradictionRun) -> str:
    return request.build_absolute_uri(reverse("api:contradiction-run-detail", args=[run.id]))


class RunAcceptedSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()

    class Meta:
        model = ContradictionRun
        fields = ["id", "status", "url", "created_at"]

    def get_url(self, run: ContradictionRun) -> str:
        return run_url(self.context["request"], run)


class RunSummarySerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    page = serializers.SerializerMethodField(help_text="The run's page in the browser.")
    resolved = serializers.IntegerField(source="resolved_count", read_only=True)
    flagged = serializers.IntegerField(source="flagged_count", read_only=True)
    reviewed = serializers.IntegerField(source="reviewed_count", read_only=True)
    review_status = BlankAsNullCharField(
        help_text="null: no review needed; pending, resolved or dismissed."
    )
    arbitration_skipped = serializers.BooleanField(read_only=True)
    debate_results = serializers.SerializerMethodField(
        help_text="The run's result: contradictions_found, resolved, "
        "flagged_for_review, consensus_narrative, latency_ms and status complete / skipped "
        "(a run that has not ended, or failed, gives its own status)."
    )
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = ContradictionRun
        fields = [
            "id",
            "url",
            "page",
            "status",
            "origin",
            "debate",
            "contradictions_found",
            "resolved",
            "flagged",
            "reviewed",
            "review_status",
            "arbitration_skipped",
            "debate_results",
            "tokens_in",
            "tokens_out",
            "cost_usd",
            "created_by",
            "created_at",
            "started_at",
            "completed_at",
        ]
        read_only_fields = fields

    def get_url(self, run: ContradictionRun) -> str:
        return run_url(self.context["request"], run)

    @extend_schema_field({"type": "object", "additionalProperties": True})
    def get_debate_results(self, run: ContradictionRun) -> dict:
        return run.debate_results

    def get_page(self, run: ContradictionRun) -> str:
        return self.context["request"].build_absolute_uri(
            reverse("contradictions:detail", args=[run.id])
        )


class FindingSerializer(serializers.ModelSerializer):
    value = ValueField(read_only=True)

    class Meta:
        model = Finding
        fields = [
            "id",
            "position",
            "metric",
            "metric_key",
            "value",
            "unit",
            "citation",
            "source",
            "period",
            "confidence",
            "interpretation",
            "text",
        ]
        read_only_fields = fields


class ReportSerializer(serializers.ModelSerializer):
    agent = serializers.CharField(source="agent_name", read_only=True)
    findings = FindingSerializer(many=True, read_only=True)

    class Meta:
        model = AgentReport
        fields = ["position", "agent", "confidence", "findings"]
        read_only_fields = fields


class CallSerializer(serializers.ModelSerializer):
    error = ModelErrorField()

    class Meta:
        model = ArbitrationCall
        fields = [
            "key",
            "status",
            "model",
            "prompt",
            "raw_response",
            "parse_failed",
            "tokens_in",
            "tokens_out",
            "cost_usd",
            "latency_ms",
            "attempts",
            "error",
            "created_at",
            "completed_at",
        ]
        read_only_fields = fields


class ResolutionSerializer(serializers.ModelSerializer):
    recommended_value = ValueField(read_only=True)
    error = BlankAsNullCharField()

    class Meta:
        model = Resolution
        fields = [
            "resolution",
            "action",
            "chosen_finding",
            "explanation",
            "recommended_value",
            "recommended_citation",
            "confidence",
            "parse_failed",
            "error",
            "notes",
        ]
        read_only_fields = fields


class ContradictionSerializer(serializers.ModelSerializer):
    relative_gap = serializers.FloatField(read_only=True, allow_null=True)
    findings = serializers.SerializerMethodField(help_text="The claims in conflict, by slot.")
    resolution = serializers.SerializerMethodField()
    call = serializers.SerializerMethodField(help_text="The arbitrator's LLM call.")
    review = serializers.SerializerMethodField(help_text="An analyst's pick, if any.")

    class Meta:
        model = Contradiction
        fields = [
            "id",
            "position",
            "metric",
            "metric_key",
            "rules",
            "severity",
            "severity_reason",
            "relative_gap",
            "pairs",
            "findings",
            "resolution",
            "call",
            "review",
        ]
        read_only_fields = fields

    @extend_schema_field(
        {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "slot": {"type": "integer"},
                    "finding": {"type": "integer"},
                    "agent": {"type": "string"},
                },
            },
        }
    )
    def get_findings(self, row: Contradiction) -> list[dict]:
        return [
            {"slot": m.slot, "finding": m.finding_id, "agent": m.finding.report.agent_name}
            for m in row.members.all()
        ]

    @extend_schema_field(ResolutionSerializer(allow_null=True))
    def get_resolution(self, row: Contradiction):
        if not hasattr(row, "resolution"):
            return None
        return ResolutionSerializer(row.resolution).data

    @extend_schema_field(CallSerializer(allow_null=True))
    def get_call(self, row: Contradiction):
        return CallSerializer(row.call).data if hasattr(row, "call") else None

    @extend_schema_field(
        {
            "type": "object",
            "nullable": True,
            "properties": {
                "action": {"type": "string"},
                "finding": {"type": "integer", "nullable": True},
                "reviewed_by": {"type": "string", "nullable": True},
                "reviewed_at": {"type": "string", "format": "date-time", "nullable": True},
                "note": {"type": "string"},
            },
        }
    )
    def get_review(self, row: Contradiction):
        if not row.review_action:
            return None
        return {
            "action": row.review_action,
            "finding": row.review_finding_id,
            "reviewed_by": row.reviewed_by.get_username() if row.reviewed_by else None,
            "reviewed_at": row.reviewed_at.isoformat() if row.reviewed_at else None,
            "note": row.review_note,
        }


class RunDetailSerializer(RunSummarySerializer):
    consensus_narrative = serializers.CharField(read_only=True)
    error = ModelErrorField()
    duration_seconds = serializers.FloatField(read_only=True, allow_null=True)
    value_threshold = serializers.FloatField(read_only=True)
    reports = ReportSerializer(many=True, read_only=True)
    contradictions = ContradictionSerializer(many=True, read_only=True)
    consensus = serializers.SerializerMethodField(
        help_text="Per contradiction: resolved, flagged, reviewed or dismissed, and why."
    )
    adjusted_reports = serializers.SerializerMethodField(
        help_text="Each report with the resolutions applied: every finding kept, replaced "
        "(with the original beside it) or annotated with the other values and their context."
    )

    class Meta(RunSummarySerializer.Meta):
        fields = [
            *RunSummarySerializer.Meta.fields,
            "value_threshold",
            "confidence_gap",
            "min_confidence",
            "model",
            "authority",
            "consensus_narrative",
            "detection_notes",
            "arbitration_ms",
            "duration_seconds",
            "attempts",
            "error",
            "reports",
            "contradictions",
            "consensus",
            "adjusted_reports",
        ]
        read_only_fields = fields

    @extend_schema_field(
        {"type": "array", "items": {"type": "object", "additionalProperties": True}}
    )
    def get_consensus(self, run: ContradictionRun) -> list:
        return (run.consensus or {}).get("cases", [])

    @extend_schema_field(
        {"type": "array", "items": {"type": "object", "additionalProperties": True}}
    )
    def get_adjusted_reports(self, run: ContradictionRun) -> list:
        return run.adjusted_reports or []


class RunListQuerySerializer(serializers.Serializer):
    status = FilterChoiceField(choices=RUN_STATUSES, required=False)
    review_status = FilterChoiceField(
        choices=REVIEW_STATUSES, required=False, help_text="none: no review was needed."
    )
    page_size = serializers.IntegerField(min_value=1, max_value=100, default=20)

    def filters(self) -> dict:
        review = self.validated_data.get("review_status")
        return {
            "status": self.validated_data.get("status", ""),
            "review_status": None if review is None else ("" if review == "none" else review),
        }
