"""Contradiction runs over the API: check input, call a service or a selector, render."""

from __future__ import annotations

import uuid

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import mixins, status, viewsets
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from api.pagination import OrderedCursorPagination
from api.parsers import JSONParser
from api.schema import FIELD_ERRORS, NOT_FOUND, UNAUTHENTICATED
from api.throttling import CreateRateThrottle
from budgets.api.exceptions import BudgetLimitReached
from budgets.api.serializers import BudgetExceededSerializer
from budgets.limits import BudgetExceeded
from contradictions import selectors, services
from contradictions.api import serializers as s
from contradictions.inputs import RunCreateSerializer, to_inputs
from contradictions.models import ContradictionRun
from debates.selectors import debates_visible_to


class ContradictionRunCreateThrottle(CreateRateThrottle):
    scope = "contradiction_run_create"
    rate_setting = "CONTRADICTION_API_CREATE_RATE"


@extend_schema_view(
    list=extend_schema(
        summary="List contradiction runs",
        description="Your runs (staff: everyone's), newest first, a page at a time: follow "
        "`next` until it is null.",
        parameters=[s.RunListQuerySerializer],
        responses={200: s.RunSummarySerializer(many=True), 400: FIELD_ERRORS, 401: UNAUTHENTICATED},
    ),
    retrieve=extend_schema(
        summary="Read a contradiction run",
        description="Reports and claims, each contradiction with the rules that fired, its "
        "severity and the arbitrator's resolution (with the LLM call), the consensus narrative "
        "and the adjusted reports.",
        parameters=[OpenApiParameter("id", OpenApiTypes.UUID, OpenApiParameter.PATH)],
        responses={200: s.RunDetailSerializer, 401: UNAUTHENTICATED, 404: NOT_FOUND},
    ),
    create=extend_schema(
        summary="Start a contradiction run",
        description="Stores 1 or more agent reports and queues the run for a worker: "
        "contradictions are detected, arbitrated concurrently, and settled by a "
        "confidence-weighted consensus; what it cannot settle goes to the review queue. Give "
        "`debate` (a completed debate of yours) instead of `reports` to take the reports from "
        "its agents' final positions. Bad input gets 400 with a message per field; nothing is "
        "stored then.",
        request=RunCreateSerializer,
        responses={
            202: s.RunAcceptedSerializer,
            400: FIELD_ERRORS,
            401: UNAUTHENTICATED,
            429: OpenApiResponse(
                BudgetExceededSerializer,
                description="Too many runs started (a `detail` message), or the run's worst "
                "case does not fit a spending limit (`code` budget_exceeded: the limit, what is "
                "used, what the run needs, when it resets); retry after `Retry-After` s.",
            ),
        },
    ),
)
class ContradictionRunViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    pagination_class = OrderedCursorPagination
    parser_classes = [JSONParser]
    ordering = ("-created_at",)

    def get_queryset(self):
        return selectors.runs_visible_to(self.request.user)

    def get_serializer_class(self):
        if self.action == "retrieve":
            return s.RunDetailSerializer
        if self.action == "create":
            return RunCreateSerializer
        return s.RunSummarySerializer

    def get_throttles(self):
        if self.action == "create":
            return [ContradictionRunCreateThrottle()]
        return super().get_throttles()

    def list(self, request, *args, **kwargs):
        params = s.RunListQuerySerializer(data=request.query_params.dict())
        params.is_valid(raise_exception=True)
        self.page_size = params.validated_data["page_size"]
        runs = selectors.run_list(user=request.user, **params.filters())
        page = self.paginate_queryset(runs)
        data = s.RunSummarySerializer(page, many=True, context={"request": request}).data
        return self.get_paginated_response(data)

    def retrieve(self, request, *args, **kwargs):
        try:
            run_id = uuid.UUID(kwargs["pk"])
        except ValueError:
            raise NotFound("No contradiction run has this id; ids are UUIDs.") from None
        run = get_object_or_404(
            selectors.run_detail_queryset().filter(
                id__in=selectors.runs_visible_to(request.user).values("id")
            ),
            id=run_id,
        )
        return Response(s.RunDetailSerializer(run, context={"request": request}).data)

    def create(self, request, *args, **kwargs):
        serializer = RunCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        reports = to_inputs(data["reports"]) if data.get("reports") else None
        thresholds = {k: data[k] for k in ("value_threshold", "confidence_gap") if k in data}
        thresholds["api_token"] = request.auth if getattr(request.auth, "pk", None) else None
        try:
            run = self._create(request, data, reports, thresholds)
        except BudgetExceeded as exc:
            raise BudgetLimitReached(exc.breach) from None
        if isinstance(run, Response):
            return run
        body = s.RunAcceptedSerializer(run, context={"request": request}).data
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["url"]})

    def _create(self, request, data, reports, thresholds):
        if data.get("debate"):
            if not debates_visible_to(request.user).filter(id=data["debate"]).exists():
                return Response(
                    {"debate": ["There is no such debate of yours."]},
                    status=status.HTTP_400_BAD_REQUEST,
                )
            return services.contradiction_run_from_debate(
                debate_id=data["debate"], created_by=request.user, reports=reports, **thresholds
            )
        return services.contradiction_run_create(
            reports=reports,
            created_by=request.user,
            origin=ContradictionRun.Origin.API,
            **thresholds,
        )
