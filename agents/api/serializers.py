"""Agents over the API: what clients send and get back. Checks are `agents.services`'s."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers
from rest_framework.validators import UniqueValidator

from agents.models import Agent
from agents.services import agent_protocols_clean
from api.fields import (
    StrictBooleanField,
    StrictCharField,
    StrictFloatField,
    StrictIntegerField,
    StrictSlugField,
)


class AgentSerializer(serializers.ModelSerializer):
    serializer_field_mapping = {
        **serializers.ModelSerializer.serializer_field_mapping,
        **{
            field: StrictCharField
            for field, drf_field in serializers.ModelSerializer.serializer_field_mapping.items()
            if drf_field is serializers.CharField
        },
    }
    slug = StrictSlugField(
        max_length=50,
        validators=[
            UniqueValidator(Agent.objects.all(), message="An agent with this slug exists.")
        ],
    )
    temperature = StrictFloatField(min_value=0.0, max_value=2.0, required=False)
    veto_risk_threshold = StrictIntegerField(min_value=0, max_value=100, required=False)
    position = StrictIntegerField(min_value=0, max_value=32767, required=False)
    can_veto = StrictBooleanField(required=False)
    is_active = StrictBooleanField(required=False)
    protocols = serializers.ListField(
        child=StrictCharField(max_length=40),
        required=False,
        help_text="Protocols this agent takes part in by default (not a selector such as auto).",
    )

    class Meta:
        model = Agent
        fields = [
            "slug",
            "name",
            "role",
            "guiding_question",
            "system_prompt",
            "model_name",
            "temperature",
            "can_veto",
            "veto_risk_threshold",
            "protocols",
            "position",
            "is_active",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["created_at", "updated_at"]

    def validate_protocols(self, value: list[str]) -> list[str]:
        try:
            return agent_protocols_clean(value)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict["protocols"]) from None
