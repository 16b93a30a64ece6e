"""Agents over the API: list and read for everyone signed in; create and change with the
model permissions `agents.add_agent` / `agents.change_agent` (role Agent editor); an agent's
veto power (and a veto-capable agent's role, protocols, prompt and model) only with
`agents.change_agent_veto` (role Operator)."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, permissions, viewsets
from rest_framework.exceptions import PermissionDenied, ValidationError

from agents.api.serializers import AgentSerializer
from agents.models import Agent
from agents.services import VETO_PERMISSION, agent_save, veto_power_changes
from api.parsers import JSONParser
from api.schema import FIELD_ERRORS, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED


class AgentPermissions(permissions.BasePermission):
    """Reading for everyone signed in; writing with the agent model permissions."""

    perms = {
        "POST": "agents.add_agent",
        "PUT": "agents.change_agent",
        "PATCH": "agents.change_agent",
    }

    def has_permission(self, request, view):
        if not (request.user and request.user.is_authenticated):
            return False
        if request.method in permissions.SAFE_METHODS:
            return True
        perm = self.perms.get(request.method)
        if perm is None:
            return True  # a method the view does not offer: 405 says so
        self.message = (
            f"Creating or changing agents needs the Agent editor role (permission {perm})."
        )
        return request.user.has_perm(perm)


@extend_schema_view(
    list=extend_schema(
        summary="List agents", responses={200: AgentSerializer(many=True), 401: UNAUTHENTICATED}
    ),
    retrieve=extend_schema(
        summary="Read an agent",
        responses={200: AgentSerializer, 401: UNAUTHENTICATED, 404: NOT_FOUND},
    ),
    create=extend_schema(
        summary="Create an agent (Agent editor)",
        responses={201: AgentSerializer, 400: FIELD_ERRORS, 401: UNAUTHENTICATED, 403: FORBIDDEN},
    ),
    update=extend_schema(
        summary="Replace an agent (Agent editor)",
        responses={
            200: AgentSerializer,
            400: FIELD_ERRORS,
            401: UNAUTHENTICATED,
            403: FORBIDDEN,
            404: NOT_FOUND,
        },
    ),
    partial_update=extend_schema(
        summary="Change an agent (Agent editor)",
        responses={
            200: AgentSerializer,
            400: FIELD_ERRORS,
            401: UNAUTHENTICATED,
            403: FORBIDDEN,
            404: NOT_FOUND,
        },
    ),
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
    permission_classes = [AgentPermissions]
    parser_classes = [JSONParser]
    lookup_field = "slug"
    lookup_value_regex = "[-a-zA-Z0-9_]+"

    def perform_create(self, serializer):
        self._save(serializer)

    def perform_update(self, serializer):
        self._save(serializer)

    def _save(self, serializer):
        changes = veto_power_changes(serializer.instance, serializer.validated_data)
        if changes and not self.request.user.has_perm(VETO_PERMISSION):
            raise PermissionDenied(
                f"Changing an agent's veto power ({', '.join(changes)}) needs the permission "
                f"{VETO_PERMISSION} (role Operator)."
            )
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
