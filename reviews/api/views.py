"""The review queue over the API, for staff: list, read, claim, release, resolve, dismiss,
re-run.

The same selectors and services as the browser queue (`reviews.selectors`, `reviews.services`),
so the same rules hold: one analyst wins a race for an item, the loser gets `409` with who got
there first; a verdict needs a note; an override needs one of the protocol's decisions; a failed
debate's item is resolved by setting its decision (an override), re-run, or dismissed.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import exceptions, mixins, permissions, status, views, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from api.pagination import NumberedPagination
from api.parsers import JSONParser
from api.schema import FIELD_ERRORS, MESSAGE, UNAUTHENTICATED
from reviews import assignment, selectors, services
from reviews.agreement import agreement_report
from reviews.api.serializers import (
    AssignSerializer,
    DismissSerializer,
    DutySerializer,
    ReleaseSerializer,
    RerunSerializer,
    ResolveSerializer,
    ReviewAgreementSerializer,
    ReviewItemDetailSerializer,
    ReviewItemSerializer,
    ReviewListQuerySerializer,
)
from reviews.models import ReviewItem

# --- views ------------------------------------------------------------------------------------


class ReviewConflictError(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "Someone else acted on this review item first."
    default_code = "review_conflict"


class IsReviewer(permissions.BasePermission):
    """Reading the queue takes `reviews.view_reviewitem`, acting on it
    `reviews.change_reviewitem` (both in the role Reviewer)."""

    message = (
        "The review queue needs the Reviewer role (permissions reviews.view_reviewitem "
        "to read, reviews.change_reviewitem to act)."
    )

    def has_permission(self, request, view):
        user = request.user
        if not (user and user.is_authenticated):
            return False
        if request.method in permissions.SAFE_METHODS:
            return user.has_perm("reviews.view_reviewitem")
        return user.has_perm("reviews.change_reviewitem")


MAX_ID = 2**63 - 1  # a larger number cannot be an item's id (and PostgreSQL would refuse it)
ACCESS = {
    401: UNAUTHENTICATED,
    403: OpenApiResponse(
        MESSAGE,
        description="Signed in, without the permission this takes "
        "(role Reviewer; overriding a safety veto to ACT: Operator).",
    ),
}
ITEM_ID = OpenApiParameter(
    "id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The review item's number."
)
NOT_FOUND = {404: OpenApiResponse(MESSAGE, description="No such review item.")}
CONFLICT = {
    409: OpenApiResponse(
        MESSAGE,
        description="The item is not in a state that allows this (someone else claimed or "
        "closed it first); `detail` says who and what. Nothing changed.",
    )
}


def _action_schema(name: str, summary: str, description: str, request, *, bad_input: bool = True):
    responses = {200: ReviewItemDetailSerializer, **ACCESS, **NOT_FOUND, **CONFLICT}
    if bad_input:
        responses[400] = FIELD_ERRORS
    return extend_schema(
        operation_id=f"reviews_{name}",
        summary=summary,
        description=description,
        request=request,
        parameters=[ITEM_ID],
        responses=responses,
    )


@extend_schema_view(
    list=extend_schema(
        summary="List review items (staff)",
        description="The review queue: most urgent first, then oldest first, a numbered page "
        "at a time. By default the active items (open or claimed); `assignee=me` is your "
        "items, `assignee=none` the unassigned ones.",
        parameters=[ReviewListQuerySerializer],
        responses={200: ReviewItemSerializer(many=True), 400: FIELD_ERRORS, **ACCESS},
    ),
    retrieve=extend_schema(
        summary="Read a review item (staff)",
        description="The item, its history, the debate's summary (follow `debate.url` for the "
        "full transcript) and the debate's other review items.",
        parameters=[ITEM_ID],
        responses={200: ReviewItemDetailSerializer, **ACCESS, **NOT_FOUND},
    ),
    claim=_action_schema(
        "claim",
        "Claim a review item (staff)",
        "Assigns an open item to you. Claiming an item you hold already changes nothing.",
        None,
        bad_input=False,
    ),
    take=_action_schema(
        "take",
        "Take a review item (staff)",
        "Claims an open item whatever it is assigned to: it becomes yours. An item someone "
        "holds stays theirs until they release it (`409`).",
        None,
        bad_input=False,
    ),
    assign=_action_schema(
        "assign",
        "Assign a review item (staff)",
        "Routes an open item to a reviewer (`assignee`: a username, or null for nobody) "
        "without claiming it. `409` for an item someone holds or that is closed; `400` for "
        "someone who cannot work the queue or reviewed the item already.",
        AssignSerializer,
    ),
    release=_action_schema(
        "release",
        "Release a review item (staff)",
        "Hands an item you hold back to the queue (a superuser may release anyone's).",
        ReleaseSerializer,
    ),
    resolve=_action_schema(
        "resolve",
        "Resolve a review item (staff)",
        "Closes an open item, or one you hold, with a verdict and a note: `uphold` keeps the "
        "machine's decision; `override` makes `decision` the debate's effective decision (the "
        "machine's stays visible). Sends the debate's `review.resolved` webhook. Overriding a "
        "safety veto to ACT takes the permission reviews.override_safety_veto, holding the item "
        '(claim it first) and `"confirm_veto_override": true`; without them, a `400` says what '
        "is missing (`claim`, `note`, `confirm_veto_override`, the last quoting what the vetoing "
        "agent saw). An item waiting for a second review or an adjudication (`stage`) is "
        "resolved by the reviewer holding it.",
        ResolveSerializer,
    ),
    dismiss=_action_schema(
        "dismiss",
        "Dismiss a review item (staff)",
        "Closes an open item, or one you hold, with no verdict (a false alarm), saying why. A "
        "failed debate or run stays failed.",
        DismissSerializer,
    ),
    rerun=_action_schema(
        "rerun",
        "Re-run a failed debate or run (staff)",
        "For a `debate_failed`, `run_failed` or `budget_exceeded` item, open or held by you: "
        "queues the debate "
        "(run) again from what is stored (LLM calls already made are not repeated; its attempt "
        "counters start again) and resolves the item with the verdict `rerun`. Sends the "
        "debate's `review.resolved` webhook. `400` for any other item; `409` when someone "
        "else holds or closed it, or the debate is no longer failed.",
        RerunSerializer,
    ),
)
class ReviewViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    permission_classes = [IsReviewer]
    parser_classes = [JSONParser]
    pagination_class = NumberedPagination
    serializer_class = ReviewItemSerializer
    lookup_value_regex = r"[0-9]+"

    def get_queryset(self):
        return ReviewItem.objects.none()  # every action reads through `reviews.selectors`

    def list(self, request, *args, **kwargs):
        params = ReviewListQuerySerializer(data=request.query_params.dict())
        params.is_valid(raise_exception=True)
        self.page_size = params.validated_data["page_size"]
        items = selectors.queue_items(user=request.user, **params.filters())
        page = self.paginate_queryset(items)
        data = ReviewItemSerializer(page, many=True, context={"request": request}).data
        return self.get_paginated_response(data)

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if "pk" in kwargs and int(kwargs["pk"]) > MAX_ID:
            raise exceptions.NotFound(f"There is no review item #{kwargs['pk']}.")

    def retrieve(self, request, *args, **kwargs):
        return self._detail(request, kwargs["pk"])

    def _detail(self, request, pk) -> Response:
        try:
            item = selectors.review_item_detail(pk)
        except ReviewItem.DoesNotExist:
            raise exceptions.NotFound(f"There is no review item #{pk}.") from None
        return Response(ReviewItemDetailSerializer(item, context={"request": request}).data)

    def _act(self, request, pk, perform) -> Response:
        """Run a service; a conflict is a 409 with the service's message."""
        try:
            perform()
        except ReviewItem.DoesNotExist:
            raise exceptions.NotFound(f"There is no review item #{pk}.") from None
        except services.ReviewConflict as exc:
            raise ReviewConflictError(exc.message) from None
        return self._detail(request, pk)

    def _valid(self, serializer_class, request) -> dict[str, Any]:
        serializer = serializer_class(data=request.data)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    @action(detail=True, methods=["post"])
    def claim(self, request, pk=None):
        return self._act(request, pk, lambda: services.review_claim(item_id=pk, user=request.user))

    @action(detail=True, methods=["post"])
    def take(self, request, pk=None):
        return self._act(request, pk, lambda: services.review_take(item_id=pk, user=request.user))

    @action(detail=True, methods=["post"])
    def assign(self, request, pk=None):
        data = self._valid(AssignSerializer, request)
        return self._act(
            request,
            pk,
            lambda: services.review_assign(
                item_id=pk, user=request.user, assignee=data["assignee"]
            ),
        )

    @action(detail=True, methods=["post"])
    def release(self, request, pk=None):
        data = self._valid(ReleaseSerializer, request)
        return self._act(
            request,
            pk,
            lambda: services.review_release(item_id=pk, user=request.user, note=data["note"]),
        )

    @action(detail=True, methods=["post"])
    def resolve(self, request, pk=None):
        data = self._valid(ResolveSerializer, request)
        return self._act(
            request,
            pk,
            lambda: services.review_resolve(
                item_id=pk,
                user=request.user,
                verdict=data["verdict"],
                decision=data["decision"],
                note=data["note"],
                confirm_veto_override=data["confirm_veto_override"],
                stage=data.get("stage"),
            ),
        )

    @action(detail=True, methods=["post"])
    def dismiss(self, request, pk=None):
        data = self._valid(DismissSerializer, request)
        return self._act(
            request,
            pk,
            lambda: services.review_dismiss(item_id=pk, user=request.user, note=data["note"]),
        )

    @action(detail=True, methods=["post"])
    def rerun(self, request, pk=None):
        data = self._valid(RerunSerializer, request)
        return self._act(
            request,
            pk,
            lambda: services.review_rerun(
                item_id=pk, user=request.user, note=data["note"], model=data.get("model") or None
            ),
        )


class DutyView(views.APIView):
    """Whether you are on duty: new review items are assigned to the reviewers on duty, the
    least loaded first (see `reviews.assignment`)."""

    permission_classes = [IsReviewer]
    parser_classes = [JSONParser]

    def _state(self, user) -> Response:
        on_duty, since, waiting = assignment.duty_of(user)
        return Response(
            DutySerializer({"on_duty": on_duty, "since": since, "assigned_open": waiting}).data
        )

    @extend_schema(
        operation_id="reviews_duty_read",
        summary="Am I on duty? (staff)",
        responses={200: DutySerializer, **ACCESS},
    )
    def get(self, request):
        return self._state(request.user)

    @extend_schema(
        operation_id="reviews_duty_set",
        summary="Go on or off duty (staff)",
        description='`{"on_duty": true}`: new review items are assigned to you when you have '
        "the fewest open items among the reviewers on duty. `false`: no more are, and your "
        "open items you have not claimed go back to be routed to the others on duty.",
        request=DutySerializer,
        responses={200: DutySerializer, 400: FIELD_ERRORS, **ACCESS},
    )
    def put(self, request):
        serializer = DutySerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        assignment.duty_set(user=request.user, on_duty=serializer.validated_data["on_duty"])
        return self._state(request.user)


class AgreementView(views.APIView):
    """Cohen's kappa, with n: between reviewers, and between reviewers and the machine."""

    permission_classes = [IsReviewer]

    @extend_schema(
        operation_id="reviews_agreement",
        summary="Agreement between reviewers, and with the machine (staff)",
        description="Cohen's kappa with the number of pairs it is computed over: reviewers with "
        "each other (the first and second reviews of each item reviewed twice), reviewers with "
        "each agent role (every verdict against that agent's final vote) and with each "
        "protocol (every verdict against the machine's decision), over the newest verdicts. "
        "A verdict is what it leaves in effect (the override, or the machine's decision "
        "upheld); items closed at their deadline have none.",
        responses={200: ReviewAgreementSerializer, **ACCESS},
    )
    def get(self, request):
        return Response(ReviewAgreementSerializer(agreement_report()).data)
