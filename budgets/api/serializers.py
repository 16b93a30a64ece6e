from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from rest_framework import serializers

from api.fields import FIRST_DAY, DayField


class UsageQuerySerializer(serializers.Serializer):
    since = DayField(
        required=False, help_text="First day counted (default: 30 days before `until`)."
    )
    until = DayField(required=False, help_text="Last day counted (default: today).")
    user = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text="Staff only: one user's usage (by id). Without it staff see everyone's.",
    )

    def validate(self, attrs):
        until = attrs.get("until") or timezone.localdate()
        since = attrs.get("since") or max(until - timedelta(days=30), FIRST_DAY)
        if since > until:
            raise serializers.ValidationError({"since": "Give a day on or before `until`."})
        if (until - since).days > 366:
            raise serializers.ValidationError({"since": "Ask for at most 366 days at a time."})
        return {**attrs, "since": since, "until": until}


class UsageRowSerializer(serializers.Serializer):
    user_id = serializers.IntegerField(allow_null=True)
    username = serializers.CharField(source="user__username", allow_null=True)
    token_id = serializers.IntegerField(allow_null=True)
    token_name = serializers.CharField(source="token__name", allow_null=True)
    model = serializers.CharField()
    calls = serializers.IntegerField()
    tokens_in = serializers.IntegerField()
    tokens_out = serializers.IntegerField()
    cost_usd = serializers.DecimalField(max_digits=16, decimal_places=8)


class UsageTotalsSerializer(serializers.Serializer):
    calls = serializers.IntegerField()
    tokens_in = serializers.IntegerField()
    tokens_out = serializers.IntegerField()
    cost_usd = serializers.DecimalField(max_digits=16, decimal_places=8)


class LimitStatusSerializer(serializers.Serializer):
    limit = serializers.CharField(help_text="e.g. user_daily_cost, global_daily_cost.")
    unit = serializers.ChoiceField(choices=["USD", "tokens"])
    limit_value = serializers.DecimalField(max_digits=16, decimal_places=4, coerce_to_string=True)
    used = serializers.DecimalField(max_digits=20, decimal_places=8, coerce_to_string=True)
    reserved = serializers.DecimalField(max_digits=20, decimal_places=8, coerce_to_string=True)
    remaining = serializers.DecimalField(max_digits=20, decimal_places=8, coerce_to_string=True)
    resets_at = serializers.DateTimeField(allow_null=True)


class UsageSerializer(serializers.Serializer):
    since = serializers.DateField()
    until = serializers.DateField()
    totals = UsageTotalsSerializer()
    rows = UsageRowSerializer(many=True, help_text="Per user, API token and model.")
    limits = LimitStatusSerializer(
        many=True,
        help_text="Your limits (staff asking for one user: that user's) and the "
        "installation's, with what is used and reserved in the current period.",
    )


class BudgetExceededSerializer(serializers.Serializer):
    """A 429: `detail` always; the rest when a spending limit (not the request rate) refused."""

    detail = serializers.CharField()
    code = serializers.CharField(required=False, help_text="budget_exceeded")
    limit = serializers.CharField(
        required=False, help_text="e.g. user_daily_cost, token_monthly_tokens."
    )
    description = serializers.CharField(required=False)
    unit = serializers.ChoiceField(choices=["USD", "tokens", "calls"], required=False)
    limit_value = serializers.JSONField(
        required=False, help_text="A decimal string for USD, an integer for tokens and calls."
    )
    used = serializers.JSONField(
        required=False, help_text="Used and reserved so far, in the limit's unit."
    )
    resets_at = serializers.DateTimeField(allow_null=True, required=False)
    needed = serializers.JSONField(
        required=False,
        help_text="What the debate refused would hold at most (its own limits), in the limit's "
        "unit; it starts once that much is free.",
    )
