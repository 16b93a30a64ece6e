"""The review queue over the API, for staff: list, read, claim, release, resolve, dismiss,
re-run.

The same selectors and services as the browser queue (`reviews.selectors`, `reviews.services`),
so the same rules hold: one analyst wins a race for an item, the loser gets `409` with who got
there first; a verdict needs a note; an override needs one of the protocol's decisions; a failed
debate's item is resolved by setting its decision (an override), re-run, or dismissed.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import exceptions, mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import JSONParser
from rest_framework.response import Response

from api.fields import BlankAsNullCharField, StrictCharField
from api.pagination import NumberedPagination
from api.schema import FIELD_ERRORS, MESSAGE, UNAUTHENTICATED
from contradictions.models import Contradiction, ContradictionRun
from debates.models import Debate
from reviews import selectors, services
from reviews.models import ReviewEvent, ReviewItem
from reviews.triage import vote_counts

# --- serializers ------------------------------------------------------------------------------


def _votes(metadata: dict[str, Any]) -> dict[str, int]:
    """The non-zero final votes (S4) or final stances (round robin) of a debate."""
    counts = vote_counts(metadata or {})
    if not counts:
        stances = (metadata or {}).get("stance_breakdown") or {}
        counts = [(k, v) for k, v in stances.items() if v] if isinstance(stances, dict) else []
    return dict(counts)


class ReviewDebateSerializer(serializers.ModelSerializer):
    """What a queue row shows of its debate (only fields the queue's query loads)."""

    url = serializers.SerializerMethodField(help_text="The debate's own resource.")
    question = serializers.CharField(source="query", read_only=True)
    decision = BlankAsNullCharField(
        source="effective_decision",
        help_text="What the service answers: a reviewer's override if any, else the rules'.",
    )
    machine_decision = BlankAsNullCharField(source="decision", help_text="The rules' decision.")
    review_status = BlankAsNullCharField()
    consensus_type = BlankAsNullCharField()
    votes = serializers.SerializerMethodField(
        help_text="Final votes (or round-robin stances) per decision; empty when there are none."
    )

    class Meta:
        model = Debate
        fields = ["id", "url", "question", "protocol", "status", "decision", "machine_decision",
                  "review_status", "consensus_type", "votes"]
        read_only_fields = fields

    def get_url(self, debate: Debate) -> str:
        return self.context["request"].build_absolute_uri(
            reverse("api:debate-detail", args=[debate.id])
        )

    @extend_schema_field(serializers.DictField(child=serializers.IntegerField()))
    def get_votes(self, debate: Debate) -> dict[str, int]:
        return _votes(debate.metadata)


class ReviewDebateDetailSerializer(ReviewDebateSerializer):
    allowed_decisions = serializers.SerializerMethodField(
        help_text="The decisions an override may choose (the protocol's, except the machine's; "
        "all of them for a failed debate, which has none)."
    )
    error = BlankAsNullCharField(help_text="Why the debate failed, while it is failed.")

    class Meta(ReviewDebateSerializer.Meta):
        fields = [*ReviewDebateSerializer.Meta.fields, "reasoning", "allowed_decisions",
                  "error", "completed_at"]
        read_only_fields = fields

    def get_allowed_decisions(self, debate: Debate) -> list[str]:
        return [d for d in services.allowed_decisions(debate) if d != debate.decision]


class ReviewContradictionSerializer(serializers.ModelSerializer):
    """A contradiction the arbitrator could not settle (the pick is made on the review page)."""

    run = serializers.UUIDField(source="run_id", read_only=True,
                                help_text="The contradiction run it belongs to.")

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


class ReviewItemSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    reason_label = serializers.CharField(source="get_reason_display", read_only=True)
    assignee = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True,
        help_text="Who holds it; once closed, who resolved or dismissed it.",
    )
    verdict = BlankAsNullCharField(
        help_text="Once resolved: uphold, override (also a failed debate's decision set by the "
        "analyst), keep (a contradiction's value picked) or rerun (a failed debate or run "
        "queued again)."
    )
    decision_override = BlankAsNullCharField(help_text="The decision an override set.")
    debate = ReviewDebateSerializer(
        read_only=True, allow_null=True, help_text="The debate, for a debate's item."
    )
    contradiction = ReviewContradictionSerializer(
        read_only=True, allow_null=True, help_text="The contradiction, for a contradiction's item."
    )
    contradiction_run = ReviewRunSerializer(
        read_only=True, allow_null=True, help_text="The run, for a failed run's item (run_failed)."
    )

    class Meta:
        model = ReviewItem
        fields = ["id", "url", "reason", "reason_label", "status", "priority", "summary",
                  "assignee", "verdict", "decision_override", "created_at", "claimed_at",
                  "closed_at", "debate", "contradiction", "contradiction_run"]
        read_only_fields = fields

    def get_url(self, item: ReviewItem) -> str:
        return self.context["request"].build_absolute_uri(
            reverse("api:review-detail", args=[item.pk])
        )


class ReviewEventSerializer(serializers.ModelSerializer):
    actor = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True, help_text="null: the system."
    )
    from_status = BlankAsNullCharField()

    class Meta:
        model = ReviewEvent
        fields = ["action", "actor", "from_status", "to_status", "note", "data", "created_at"]
        read_only_fields = fields


class ReviewSiblingSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()

    class Meta:
        model = ReviewItem
        fields = ["id", "url", "reason", "status"]
        read_only_fields = fields

    def get_url(self, item: ReviewItem) -> str:
        return self.context["request"].build_absolute_uri(
            reverse("api:review-detail", args=[item.pk])
        )


class ReviewItemDetailSerializer(ReviewItemSerializer):
    details = serializers.JSONField(read_only=True, help_text="What triage recorded.")
    note = BlankAsNullCharField(help_text="The analyst's note on resolving or dismissing.")
    debate = ReviewDebateDetailSerializer(
        read_only=True, allow_null=True, help_text="The debate, for a debate's item."
    )
    events = ReviewEventSerializer(many=True, read_only=True, help_text="Oldest first.")
    other_items = serializers.SerializerMethodField(
        help_text="The other review items of the same debate (or contradiction run)."
    )

    class Meta(ReviewItemSerializer.Meta):
        fields = [*ReviewItemSerializer.Meta.fields, "details", "note", "events", "other_items"]
        read_only_fields = fields

    @extend_schema_field(ReviewSiblingSerializer(many=True))
    def get_other_items(self, item: ReviewItem) -> list[dict]:
        if item.debate_id is not None:
            others = [i for i in item.debate.review_items.all() if i.pk != item.pk]
        else:
            others = selectors.other_items_for_debate(item)
        return ReviewSiblingSerializer(others, many=True, context=self.context).data


ASSIGNEE_HELP = "me (mine), none (unassigned) or a username."
QUEUE_STATUSES = list(selectors.STATUS_FILTERS)


class ReviewListQuerySerializer(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=QUEUE_STATUSES, default="active",
        help_text="active (open or claimed, the default), open, claimed, resolved, dismissed "
        "or all.",
    )
    reason = serializers.ChoiceField(choices=ReviewItem.Reason.choices, required=False)
    assignee = serializers.CharField(max_length=150, required=False, help_text=ASSIGNEE_HELP)
    page = serializers.IntegerField(min_value=1, default=1)
    page_size = serializers.IntegerField(min_value=1, max_value=100, default=50)

    def validate_assignee(self, value: str) -> str:
        if value in ("me", "none"):
            return value
        user_id = (
            get_user_model().objects.filter(username=value).values_list("pk", flat=True).first()
        )
        if user_id is None:
            raise serializers.ValidationError(
                f"No user is called '{value}'. Use me, none or an existing username."
            )
        return str(user_id)

    def filters(self) -> dict[str, str]:
        data = self.validated_data
        return {
            "status": data["status"],
            "reason": data.get("reason", ""),
            "assignee": data.get("assignee", ""),
        }


class NoteRequiredField(StrictCharField):
    def __init__(self, action_name: str, **kwargs):
        message = f"A note is required to {action_name}: say why."
        super().__init__(
            max_length=5000,
            error_messages={"required": message, "blank": message},
            help_text=f"Why you {action_name} it (required).",
            **kwargs,
        )


class ReleaseSerializer(serializers.Serializer):
    note = StrictCharField(max_length=5000, required=False, allow_blank=True, default="",
                           help_text="Optional: why you hand it back.")


class ResolveSerializer(serializers.Serializer):
    verdict = serializers.ChoiceField(
        choices=[ReviewItem.Verdict.UPHOLD, ReviewItem.Verdict.OVERRIDE],
        help_text="uphold the machine's decision, or override it with `decision` (a failed "
        "debate has no decision to uphold: override sets the one it gets).",
        error_messages={
            "required": "Choose a verdict: uphold or override.",
            "invalid_choice": "'{input}' is not a verdict: choose uphold or override.",
        },
    )
    decision = StrictCharField(
        max_length=16, required=False, allow_blank=True, default="",
        help_text="With override: the decision that replaces the machine's (one of the debate's "
        "`allowed_decisions`). Leave it out to uphold.",
    )
    note = NoteRequiredField("resolve")

    def validate(self, attrs):
        if attrs["verdict"] == ReviewItem.Verdict.UPHOLD and attrs.get("decision"):
            raise serializers.ValidationError(
                {"decision": "Only an override takes a decision; leave it out to uphold."}
            )
        return attrs


class DismissSerializer(serializers.Serializer):
    note = NoteRequiredField("dismiss")


class RerunSerializer(serializers.Serializer):
    note = StrictCharField(max_length=5000, required=False, allow_blank=True, default="",
                           help_text="Optional: why you re-run it (e.g. what was fixed).")


# --- views ------------------------------------------------------------------------------------


class ReviewConflictError(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "Someone else acted on this review item first."
    default_code = "review_conflict"


class IsStaff(permissions.BasePermission):
    message = "The review queue is for staff only."

    def has_permission(self, request, view):
        user = request.user
        return bool(user and user.is_authenticated and user.is_staff)


MAX_ID = 2**63 - 1  # a larger number cannot be an item's id (and PostgreSQL would refuse it)
ACCESS = {
    401: UNAUTHENTICATED,
    403: OpenApiResponse(MESSAGE, description="Signed in, but not staff."),
}
ITEM_ID = OpenApiParameter("id", OpenApiTypes.INT, OpenApiParameter.PATH,
                           description="The review item's number.")
NOT_FOUND = {404: OpenApiResponse(MESSAGE, description="No such review item.")}
CONFLICT = {
    409: OpenApiResponse(
        MESSAGE,
        description="The item is not in a state that allows this (someone else claimed or "
        "closed it first); `detail` says who and what. Nothing changed.",
    )
}


def _action_schema(name: str, summary: str, description: str, request, *,
                   bad_input: bool = True):
    responses = {200: ReviewItemDetailSerializer, **ACCESS, **NOT_FOUND, **CONFLICT}
    if bad_input:
        responses[400] = FIELD_ERRORS
    return extend_schema(operation_id=f"reviews_{name}", summary=summary,
                         description=description, request=request, parameters=[ITEM_ID],
                         responses=responses)


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
        "claim", "Claim a review item (staff)",
        "Assigns an open item to you. Claiming an item you hold already changes nothing.",
        None, bad_input=False,
    ),
    release=_action_schema(
        "release", "Release a review item (staff)",
        "Hands an item you hold back to the queue (a superuser may release anyone's).",
        ReleaseSerializer,
    ),
    resolve=_action_schema(
        "resolve", "Resolve a review item (staff)",
        "Closes an open item, or one you hold, with a verdict and a note: `uphold` keeps the "
        "machine's decision; `override` makes `decision` the debate's effective decision (the "
        "machine's stays visible). Sends the debate's `review.resolved` webhook.",
        ResolveSerializer,
    ),
    dismiss=_action_schema(
        "dismiss", "Dismiss a review item (staff)",
        "Closes an open item, or one you hold, with no verdict (a false alarm), saying why. A "
        "failed debate or run stays failed.",
        DismissSerializer,
    ),
    rerun=_action_schema(
        "rerun", "Re-run a failed debate or run (staff)",
        "For a `debate_failed` or `run_failed` item, open or held by you: queues the debate "
        "(run) again from what is stored (LLM calls already made are not repeated; its attempt "
        "counters start again) and resolves the item with the verdict `rerun`. Sends the "
        "debate's `review.resolved` webhook. `400` for any other item; `409` when someone "
        "else holds or closed it, or the debate is no longer failed.",
        RerunSerializer,
    ),
)
class ReviewViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    permission_classes = [IsStaff]
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
    def release(self, request, pk=None):
        data = self._valid(ReleaseSerializer, request)
        return self._act(request, pk, lambda: services.review_release(
            item_id=pk, user=request.user, note=data["note"]))

    @action(detail=True, methods=["post"])
    def resolve(self, request, pk=None):
        data = self._valid(ResolveSerializer, request)
        return self._act(request, pk, lambda: services.review_resolve(
            item_id=pk, user=request.user, verdict=data["verdict"], decision=data["decision"],
            note=data["note"]))

    @action(detail=True, methods=["post"])
    def dismiss(self, request, pk=None):
        data = self._valid(DismissSerializer, request)
        return self._act(request, pk, lambda: services.review_dismiss(
            item_id=pk, user=request.user, note=data["note"]))

    @action(detail=True, methods=["post"])
    def rerun(self, request, pk=None):
        data = self._valid(RerunSerializer, request)
        return self._act(request, pk, lambda: services.review_rerun(
            item_id=pk, user=request.user, note=data["note"]))
