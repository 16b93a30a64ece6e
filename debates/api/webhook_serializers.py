"""What the API says of webhooks: the owner's secret, the events as documented in the schema
(the create operation's callbacks), and a test ping."""

from rest_framework import serializers

from api.fields import StrictURLField
from debates.models import Debate, WebhookDelivery


class WebhookSecretSerializer(serializers.Serializer):
    secret = serializers.CharField(read_only=True)
    created_at = serializers.DateTimeField(read_only=True)


# --- webhook events (documented in the schema as the create operation's callbacks) ------------


class WebhookDebateSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    url = serializers.URLField(help_text="The debate in the API, absolute (`DEBATE_SITE_URL`).")
    path = serializers.CharField(help_text="Deprecated: the same without the site; use `url`.")
    question = serializers.CharField()
    protocol = serializers.CharField()
    status = serializers.ChoiceField(choices=Debate.Status.choices)
    decision = serializers.CharField(
        allow_null=True,
        help_text="The effective decision: a reviewer's override, else the machine's.",
    )
    machine_decision = serializers.CharField(allow_null=True)
    review_status = serializers.CharField(allow_null=True)
    consensus_type = serializers.CharField(allow_null=True)
    reasoning = serializers.CharField()
    error = serializers.CharField(allow_null=True, help_text="Why it failed (debate.failed).")
    created_at = serializers.DateTimeField()
    completed_at = serializers.DateTimeField(allow_null=True)


class WebhookReviewSerializer(serializers.Serializer):
    item_id = serializers.IntegerField()
    url = serializers.URLField(help_text="The review item in the API, absolute.")
    reason = serializers.CharField(help_text="The most urgent of `reasons`.")
    reasons = serializers.ListField(child=serializers.CharField())
    status = serializers.CharField(
        help_text="resolved, dismissed or expired (closed at its deadline by its fallback); "
        "review.overdue: open or claimed."
    )
    verdict = serializers.CharField(
        allow_null=True, help_text="fallback when it was closed at its deadline (no reviewer)."
    )
    decision_override = serializers.CharField(allow_null=True)
    closed_at = serializers.DateTimeField(allow_null=True)
    due_at = serializers.DateTimeField(allow_null=True, help_text="Its review deadline.")
    overdue_at = serializers.DateTimeField(
        allow_null=True, help_text="When it was found past its deadline."
    )


class WebhookEventSerializer(serializers.Serializer):
    id = serializers.UUIDField(help_text="The event's id, also in `X-Debate-Delivery`.")
    event = serializers.ChoiceField(
        choices=[*(c for c, _ in WebhookDelivery.Event.choices)],
        help_text="Also in `X-Debate-Event`.",
    )
    created_at = serializers.DateTimeField()
    debate = WebhookDebateSerializer(help_text="The debate as it was when the event happened.")
    review = WebhookReviewSerializer(
        required=False,
        allow_null=True,
        help_text="review.resolved: the item closed; review.overdue: the item past its deadline.",
    )


class WebhookPingEventSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    event = serializers.ChoiceField(choices=["ping"])
    created_at = serializers.DateTimeField()
    site = serializers.URLField(help_text="The sending site (`DEBATE_SITE_URL`).")


class WebhookPingRequestSerializer(serializers.Serializer):
    url = StrictURLField(
        required=False,
        max_length=2000,
        help_text="The receiver to test. Or leave it out and name a `debate`.",
    )
    debate = serializers.UUIDField(
        required=False, help_text="One of your debates: its stored `callback_url` is tested."
    )

    def validate(self, attrs):
        if bool(attrs.get("url")) == bool(attrs.get("debate")):
            raise serializers.ValidationError(
                {
                    "url": [
                        "Give the receiver's `url`, or a `debate` whose callback URL to test "
                        "(one of the two)."
                    ]
                }
            )
        return attrs


class WebhookPingResultSerializer(serializers.Serializer):
    url = serializers.CharField()
    event_id = serializers.UUIDField()
    delivered = serializers.BooleanField(help_text="The receiver answered 2xx.")
    status_code = serializers.IntegerField(allow_null=True, help_text="null: no answer.")
    error = serializers.CharField(help_text="Why it was not delivered; empty when it was.")
    response_excerpt = serializers.CharField(help_text="The start of the receiver's answer.")
    duration_ms = serializers.IntegerField()
