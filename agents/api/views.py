"""Agents over the API: list and read for everyone signed in; create and change for staff."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, permissions, viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import JSONParser

from agents.api.serializers import AgentSerializer
from agents.models import Agent
from agents.services import agent_save
from api.schema import FIELD_ERRORS, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED


class IsStaffOrReadOnly(permissions.BasePermission):
    message = "Only staff may create or change agents."

    def has_permission(self, request, view):
        if not (request.user and request.user.is_authenticated):
            return False
        return request.method in permissions.SAFE_METHODS or request.user.is_staff


@extend_schema_view(
    list=extend_schema(summary="List agents",
                       responses={200: AgentSerializer(many=True), 401: UNAUTHENTICATED}),
    retrieve=extend_schema(summary="Read an agent",
                           responses={200: AgentSerializer, 401: UNAUTHENTICATED,
                                      404: NOT_FOUND}),
    create=extend_schema(summary="Create an agent (staff)",
                         responses={201: AgentSerializer, 400: FIELD_ERRORS,
                                    401: UNAUTHENTICATED, 403: FORBIDDEN}),
    update=extend_schema(summary="Replace an agent (staff)",
                         responses={200: AgentSerializer, 400: FIELD_ERRORS,
                                    401: UNAUTHENTICATED, 403: FORBIDDEN, 404: NOT_FOUND}),
    partial_update=extend_schema(summary="Change an agent (staff)",
                                 responses={200: AgentSerializer, 400: FIELD_ERRORS,
                                            401: UNAUTHENTICATED, 403: FORBIDDEN,
                                            404: NOT_FOUND}),
)
class AgentViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    """Agents debates are made of. Existing debates keep a snapshot of their agents."""

    queryset = Agent.objects.all()
    serializer_class = AgentSerializer
    permission_classes = [IsStaffOrReadOnly]
    parser_classes = [JSONParser]
    lookup_field = "slug"
    lookup_value_regex = "[-a-zA-Z0-9_]+"

    def perform_create(self, serializer):
        self._save(serializer)

    def perform_update(self, serializer):
        self._save(serializer)

    def _save(self, serializer):
        try:
            with transaction.atomic():
                # Versioned and recorded in the audit trail, as the admin's saves are.
                agent = serializer.instance or Agent()
                for field, value in serializer.validated_data.items():
                    setattr(agent, field, value)
                serializer.instance = agent_save(agent=agent, actor=self.request.user)
        except IntegrityError:  # a concurrent request took the name or slug
            raise ValidationError(
                {"non_field_errors": ["An agent with this name or slug already exists."]}
            ) from None
