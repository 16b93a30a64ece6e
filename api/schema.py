"""Responses every API documents the same way (the OpenAPI components they share)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers

MESSAGE = inline_serializer("Message", {"detail": serializers.CharField()})
FIELD_ERRORS = OpenApiResponse(
    OpenApiTypes.OBJECT,
    description="Bad input: an object of field name -> list of messages saying what to fix.",
)
UNAUTHENTICATED = OpenApiResponse(
    MESSAGE, description="No credentials, or a token that is unknown or revoked."
)
FORBIDDEN = OpenApiResponse(MESSAGE, description="Not allowed for this user.")
NOT_FOUND = OpenApiResponse(MESSAGE, description="No such object visible to this user.")
