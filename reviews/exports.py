"""What the review items list exports as CSV (the admin's *Export the selected review items as
CSV*): one row per item, with its subject's key figures read through the item's own foreign keys
(lookups by name: the queue still imports no subject app)."""

from __future__ import annotations

from api import csv_export
from api.csv_export import Column

REVIEW_ITEM_COLUMNS = (
    Column("id", "id"),
    Column("created_at", "created_at"),
    Column("reason", "reason"),
    Column("reasons", "reasons", format=" ".join),
    Column("priority", "priority"),
    Column("status", "status"),
    Column("summary", "summary"),
    Column("assignee", "assignee__username"),
    Column("claimed_at", "claimed_at"),
    Column("closed_at", "closed_at"),
    Column("verdict", "verdict"),
    Column("decision_override", "decision_override"),
    Column("note", "note"),
    Column("debate_id", "debate_id"),
    Column("debate_protocol", "debate__protocol"),
    Column("debate_question", "debate__query"),
    Column("debate_decision", "debate__decision"),
    Column("contradiction_id", "contradiction_id"),
    Column("contradiction_run_id", "contradiction_run_id"),
)

export_review_items_csv = csv_export.admin_action(
    REVIEW_ITEM_COLUMNS,
    name="export_review_items_csv",
    stem="review-items",
    description="Export the selected review items as CSV",
)
