"""What the debates list exports as CSV (the admin's *Export the selected debates as CSV*): one
row per debate, with what an analyst compares (decisions, baselines, review, cost, timing)."""

from __future__ import annotations

from django.db.models import Case, ExpressionWrapper, F, When, fields
from django.db.models.functions import Extract

from api import csv_export
from api.csv_export import Column

DEBATE_COLUMNS = (
    Column("id", "id"),
    Column("created_at", "created_at"),
    Column("completed_at", "completed_at"),
    Column("status", "status"),
    Column("protocol", "protocol"),
    Column("question", "query"),
    Column("created_by", "created_by__username"),
    Column("schedule", "schedule__name"),
    Column("decision", "decision"),
    Column("decision_override", "decision_override"),
    Column(
        "effective_decision",
        Case(
            When(decision_override="", then=F("decision")),
            default=F("decision_override"),
        ),
    ),
    Column("review_status", "review_status"),
    Column("consensus_type", "consensus_type"),
    Column("majority_decision", "majority_decision"),
    Column("outcome_change", "outcome_change"),
    Column("rules_version", "rules_version"),
    Column("injection_findings", "injection_findings", format=len),
    Column("tokens_in", "tokens_in"),
    Column("tokens_out", "tokens_out"),
    Column("cost_usd", "cost_usd"),
    Column(
        "duration_s",
        Extract(
            ExpressionWrapper(
                F("completed_at") - F("started_at"), output_field=fields.DurationField()
            ),
            "epoch",
        ),
        format=lambda v: None if v is None else round(float(v), 3),
    ),
    Column("attempts", "attempts"),
    Column("recoveries", "recoveries"),
    Column("error", "error"),
)

export_debates_csv = csv_export.admin_action(
    DEBATE_COLUMNS,
    name="export_debates_csv",
    stem="debates",
    description="Export the selected debates as CSV",
)
