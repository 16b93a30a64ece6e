"""What the review queue's API shows of a debate (`debate` on a debate's review item)."""

from __future__ import annotations

import uuid
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.fields import BlankAsNullCharField
from api.links import row_links
from debates.models import Debate
from debates.outline import outline
from debates.reviewing.pages import allowed_decisions
from debates.reviewing.triage import vote_counts


def _votes(metadata: dict[str, Any]) -> dict[str, int]:
    """The non-zero final votes (S4) or final stances (round robin) of a debate."""
    counts = vote_counts(metadata or {})
    if not counts:
        stances = (metadata or {}).get("stance_breakdown") or {}
        counts = [(k, v) for k, v in stances.items() if v] if isinstance(stances, dict) else []
    return dict(counts)


class ReviewDebateSerializer(serializers.ModelSerializer):
    """What a queue row shows of its debate (only fields the queue's query loads)."""

    url = serializers.SerializerMethodField(help_text="The debate's own resource.")
    question = serializers.CharField(source="query", read_only=True)
    decision = BlankAsNullCharField(
        source="effective_decision",
        help_text="What the service answers: a reviewer's override if any, else the rules'.",
    )
    machine_decision = BlankAsNullCharField(source="decision", help_text="The rules' decision.")
    review_status = BlankAsNullCharField()
    consensus_type = BlankAsNullCharField()
    votes = serializers.SerializerMethodField(
        help_text="Final votes (or round-robin stances) per decision; empty when there are none."
    )

    class Meta:
        model = Debate
        fields = [
            "id",
            "url",
            "question",
            "protocol",
            "status",
            "decision",
            "machine_decision",
            "review_status",
            "consensus_type",
            "votes",
        ]
        read_only_fields = fields

    def get_url(self, debate: Debate) -> str:
        """The debate's URL, reversed once per list (the root serializer's context keeps it)."""
        link = self.context.get("review_debate_link")
        if link is None:
            link = row_links("api:debate-detail", key=uuid.UUID, request=self.context["request"])
            self.context["review_debate_link"] = link
        return link(debate.id)

    @extend_schema_field(serializers.DictField(child=serializers.IntegerField()))
    def get_votes(self, debate: Debate) -> dict[str, int]:
        return _votes(debate.metadata)

    def to_representation(self, debate: Debate) -> dict[str, Any]:
        """The fields above, read straight from the debate (a list shows 100 of them): what
        DRF's field-by-field representation gives, which
        `tests/api/test_review_representation.py` checks."""
        return {
            "id": str(debate.id),
            "url": self.get_url(debate),
            **outline(debate),
            "votes": self.get_votes(debate),
        }


class ReviewDebateDetailSerializer(ReviewDebateSerializer):
    # One debate: DRF's field-by-field representation (the list's is written out for speed).
    to_representation = serializers.ModelSerializer.to_representation

    allowed_decisions = serializers.SerializerMethodField(
        help_text="The decisions an override may choose (the protocol's, except the machine's; "
        "all of them for a failed debate, which has none)."
    )
    error = BlankAsNullCharField(help_text="Why the debate failed, while it is failed.")

    class Meta(ReviewDebateSerializer.Meta):
        fields = [
            *ReviewDebateSerializer.Meta.fields,
            "reasoning",
            "allowed_decisions",
            "error",
            "completed_at",
        ]
        read_only_fields = fields

    def get_allowed_decisions(self, debate: Debate) -> list[str]:
        return [d for d in allowed_decisions(debate) if d != debate.decision]
