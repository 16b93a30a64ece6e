"""The protocol registry over the API: every way to debate, with its options and defaults."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from api.schema import UNAUTHENTICATED
from protocols import PROTOCOLS, protocol_catalog

OPTION_TYPES = ["int", "float", "str", "bool"]


@extend_schema_field(OpenApiTypes.NUMBER)
class NumberField(serializers.Field):
    """A number as it is: 2 stays 2 and 0.8 stays 0.8."""

    def to_representation(self, value):
        return value


def option_listing(option: dict[str, Any]) -> dict[str, Any]:
    """An entry of `describe_options` in the API's words: numbers have a minimum and a
    maximum, text a max_length."""
    number = option["type"] in ("int", "float")
    return {
        "name": option["name"],
        "type": option["type"],
        "default": option["default"],
        "minimum": option.get("min") if number else None,
        "maximum": option.get("max") if number else None,
        "max_length": option.get("max") if option["type"] == "str" else None,
        "choices": option.get("choices"),
        "description": option.get("description", ""),
    }


class ProtocolOptionSerializer(serializers.Serializer):
    name = serializers.CharField()
    type = serializers.ChoiceField(choices=OPTION_TYPES, help_text="The JSON type to send.")
    default = serializers.JSONField(help_text="Used when the option is left out.")
    minimum = NumberField(allow_null=True, help_text="Numbers: the smallest value allowed.")
    maximum = NumberField(allow_null=True, help_text="Numbers: the largest value allowed.")
    max_length = serializers.IntegerField(allow_null=True, help_text="Text: most characters.")
    choices = serializers.ListField(
        child=serializers.JSONField(), allow_null=True, help_text="The only values allowed."
    )
    description = serializers.CharField()


class ParticipantsSerializer(serializers.Serializer):
    min = serializers.IntegerField(source="min_participants")
    max = serializers.IntegerField(source="max_participants")
    roles = serializers.CharField(
        source="roles_needed", help_text="The roles the agents must have (checked at creation)."
    )


class ProtocolSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="What to send as `protocol` when starting a debate.")
    label = serializers.CharField()
    description = serializers.CharField()
    decisions = serializers.ListField(
        child=serializers.CharField(), help_text="The decisions a debate can end with."
    )
    participants = ParticipantsSerializer(source="*", help_text="How many agents take part.")
    options = serializers.SerializerMethodField(
        help_text="What `options` may hold when starting a debate; anything else is refused."
    )
    selector = serializers.BooleanField(
        help_text="true: not a debate of its own; picks one of `chooses_from` for each question "
        "(its options are those of the protocol it picks)."
    )
    chooses_from = serializers.ListField(child=serializers.CharField(), allow_null=True)

    @extend_schema_field(ProtocolOptionSerializer(many=True))
    def get_options(self, protocol: dict[str, Any]) -> list[dict[str, Any]]:
        return ProtocolOptionSerializer(
            [option_listing(o) for o in protocol["options"]], many=True
        ).data


def catalog() -> list[dict[str, Any]]:
    return [
        {
            **entry,
            "chooses_from": list(getattr(PROTOCOLS[entry["name"]], "candidates", ()))
            if entry["selector"]
            else None,
        }
        for entry in protocol_catalog()
    ]


class ProtocolListView(APIView):
    """The protocols a debate can use (`protocol` when starting one) and their options."""

    @extend_schema(
        summary="List protocols",
        description="Every protocol the service can run, with its decisions, how many agents "
        "it takes and each option's type, default, limits and meaning. `auto` is a selector: "
        "it picks a protocol for each question.",
        responses={200: ProtocolSerializer(many=True), 401: UNAUTHENTICATED},
    )
    def get(self, request):
        return Response(ProtocolSerializer(catalog(), many=True).data)
