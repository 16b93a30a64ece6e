"""What the review queue's API shows of a contradiction (`contradiction`) and of a failed
contradiction run (`contradiction_run`)."""

from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from api.fields import BlankAsNullCharField
from contradictions.models import Contradiction, ContradictionRun


class ReviewContradictionSerializer(serializers.ModelSerializer):
    """A contradiction the arbitrator could not settle (the pick is made on the review page)."""

    run = serializers.UUIDField(
        source="run_id", read_only=True, help_text="The contradiction run it belongs to."
    )

    class Meta:
        model = Contradiction
        fields = ["id", "metric", "severity", "run"]
        read_only_fields = fields


class ReviewRunSerializer(serializers.ModelSerializer):
    """A contradiction run that failed."""

    url = serializers.SerializerMethodField(help_text="The run's own resource.")
    review_status = BlankAsNullCharField()
    error = BlankAsNullCharField(help_text="Why the run failed, while it is failed.")

    class Meta:
        model = ContradictionRun
        fields = ["id", "url", "status", "review_status", "error", "contradictions_found"]
        read_only_fields = fields

    def get_url(self, run: ContradictionRun) -> str:
        return self.context["request"].build_absolute_uri(
            reverse("api:contradiction-run-detail", args=[run.id])
        )
