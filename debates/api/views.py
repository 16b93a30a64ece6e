"""API views: check input, call a service or a selector, render. Nothing else lives here."""

from __future__ import annotations

import uuid

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiCallback,
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import exceptions, mixins, renderers, status, viewsets
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import services as account_services
from api.errors import validation_detail
from api.pagination import OrderedCursorPagination
from api.parsers import JSONParser
from api.schema import FIELD_ERRORS, MESSAGE, NOT_FOUND, UNAUTHENTICATED
from api.throttling import CreateRateThrottle
from budgets.api.exceptions import BudgetLimitReached
from budgets.api.serializers import BudgetExceededSerializer
from budgets.limits import BudgetExceeded
from debates import callbacks, selectors, webhooks
from debates.api import serializers as s
from debates.api import webhook_serializers as ws
from debates.api.services import IdempotencyConflict, debate_start
from debates.services import BatchInvalid, debate_create_many
from debates.transcript import render_markdown
from protocols import PROTOCOLS

IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[ -~]+$"},
    OpenApiParameter.HEADER,
    required=False,
    description=(
        "Makes retries safe: the same key with the same body returns the same debate; with a "
        "different body, 422. Up to 255 printable ASCII characters, e.g. a UUID."
    ),
)


SIGNATURE_SCHEME = f"""Every event is a JSON POST signed with your webhook secret (GET/POST
`/api/v1/webhook-secret/`). Headers:

* `{webhooks.SIGNATURE_HEADER}: sha256=<hex>`: the HMAC-SHA256, keyed with your secret, of
  `<{webhooks.TIMESTAMP_HEADER}>.<raw body>` (the timestamp, a dot, then the body's bytes
  exactly as received);
* `{webhooks.TIMESTAMP_HEADER}`: when it was signed, in Unix seconds; refuse events more than
  a few minutes old (replays);
* `{webhooks.EVENT_HEADER}`: the event (`debate.completed`, `debate.failed`,
  `review.resolved`, `review.overdue`, `ping`);
* `{webhooks.DELIVERY_HEADER}`: the event's id; a retry repeats it, so handle each id once.

Answer 2xx to accept. 5xx, 408, 425, 429 and network errors are retried with a doubling delay
(a bounded number of times); any other answer, or a redirect (never followed), ends the event.
Links in the body (`debate.url`, `review.url`) are absolute, on the site's `DEBATE_SITE_URL`."""

WEBHOOK_RECEIVED = {
    200: OpenApiResponse(description="Accepted (any 2xx)."),
    500: OpenApiResponse(description="Retried later (as are 408, 425, 429 and 5xx)."),
}

DEBATE_EVENTS = OpenApiCallback(
    "debateEvents",
    "{$request.body#/callback_url}",
    extend_schema(
        summary="A debate's events, POSTed to its callback_url",
        description=SIGNATURE_SCHEME,
        request=ws.WebhookEventSerializer,
        responses=WEBHOOK_RECEIVED,
    ),
)


def _create_examples() -> list[OpenApiExample]:
    """Bodies that work as they are: the shipped agents and each protocol's real options (each
    protocol's `api_example`, in the registry's order)."""
    return [
        OpenApiExample(cls.api_example["title"], value=cls.api_example["value"], request_only=True)
        for cls in PROTOCOLS.values()
        if cls.api_example is not None
    ]


class IdempotencyKeyReused(exceptions.APIException):
    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    default_detail = (
        "This Idempotency-Key was already used with a different request. Use a new key for a "
        "new debate, or repeat the original request exactly."
    )
    default_code = "idempotency_key_reused"


class DebateCreateThrottle(CreateRateThrottle):
    scope = "debate_create"
    rate_setting = "DEBATE_API_CREATE_RATE"


class DebateBatchThrottle(DebateCreateThrottle):
    """The same count as single starts: a batch counts each debate it holds."""

    def weight(self, request) -> int:
        debates = request.data.get("debates") if isinstance(request.data, dict) else None
        return len(debates) if isinstance(debates, list) and debates else 1


def _idempotency_key(request) -> str | None:
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not 1 <= len(key) <= 255 or not all(" " <= ch <= "~" for ch in key):
        raise ValidationError(
            {"Idempotency-Key": "Use 1 to 255 printable ASCII characters, e.g. a UUID."}
        )
    return key


@extend_schema_view(
    list=extend_schema(
        summary="List debates",
        description="Your debates (staff: everyone's), newest first unless `ordering` says "
        "otherwise, a page at a time: follow `next` until it is null.",
        parameters=[s.DebateListQuerySerializer],
        responses={
            200: s.DebateSummarySerializer(many=True),
            400: FIELD_ERRORS,
            401: UNAUTHENTICATED,
        },
    ),
    retrieve=extend_schema(
        summary="Read a debate",
        description="Status, decisions, metadata, usage and the full transcript.",
        parameters=[OpenApiParameter("id", OpenApiTypes.UUID, OpenApiParameter.PATH)],
        responses={200: s.DebateDetailSerializer, 401: UNAUTHENTICATED, 404: NOT_FOUND},
    ),
    create=extend_schema(
        summary="Start a debate",
        description="Stores the debate and queues it for a worker; poll its `url` or give a "
        "`callback_url` for signed webhook events (see the callbacks; test a receiver with "
        "`POST /api/v1/webhooks/ping/`). `query` is still accepted as the deprecated old name "
        "of `question`.",
        request=s.DebateCreateSerializer,
        parameters=[IDEMPOTENCY_KEY],
        examples=_create_examples(),
        callbacks=[DEBATE_EVENTS],
        responses={
            202: s.DebateAcceptedSerializer,
            400: FIELD_ERRORS,
            401: UNAUTHENTICATED,
            422: OpenApiResponse(MESSAGE, description="Idempotency-Key reused with another body."),
            429: OpenApiResponse(
                BudgetExceededSerializer,
                description="Too many debates started (a `detail` message), or a spending "
                "limit is reached (`code` budget_exceeded: the limit, what is used, when it "
                "resets); retry after `Retry-After` s.",
            ),
        },
    ),
)
class DebateViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    pagination_class = OrderedCursorPagination
    parser_classes = [JSONParser]
    service_field_names = {"query": "question"}

    def get_queryset(self):
        return selectors.debates_visible_to(self.request.user)

    def get_serializer_class(self):
        if self.action == "retrieve":
            return s.DebateDetailSerializer
        if self.action == "create":
            return s.DebateCreateSerializer
        return s.DebateSummarySerializer

    def get_throttles(self):
        if self.action == "create":
            return [DebateCreateThrottle()]
        return super().get_throttles()

    def list(self, request, *args, **kwargs):
        params = s.DebateListQuerySerializer(data=request.query_params.dict())
        params.is_valid(raise_exception=True)
        self.ordering = (params.validated_data["ordering"],)
        self.page_size = params.validated_data["page_size"]
        debates = selectors.debate_list(user=request.user, **params.filters()).only(
            *s.DebateSummarySerializer.LOADS
        )
        page = self.paginate_queryset(debates)
        data = s.DebateSummarySerializer(page, many=True, context={"request": request}).data
        return self.get_paginated_response(data)

    def retrieve(self, request, *args, **kwargs):
        try:
            debate_id = uuid.UUID(kwargs["pk"])
        except ValueError:
            raise NotFound("No debate has this id; ids are UUIDs.") from None
        debate = get_object_or_404(
            selectors.debate_detail_queryset().filter(
                id__in=selectors.debates_visible_to(request.user).values("id")
            ),
            id=debate_id,
        )
        return Response(s.DebateDetailSerializer(debate, context={"request": request}).data)

    def create(self, request, *args, **kwargs):
        key = _idempotency_key(request)
        serializer = s.DebateCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            debate, created = debate_start(
                user=request.user,
                idempotency_key=key,
                api_token=request.auth if getattr(request.auth, "pk", None) else None,
                **serializer.validated_data,
            )
        except IdempotencyConflict:
            raise IdempotencyKeyReused from None
        except BudgetExceeded as exc:
            raise BudgetLimitReached(exc.breach) from None
        body = s.DebateAcceptedSerializer(debate, context={"request": request}).data
        headers = {"Location": body["url"]}
        if not created:
            headers["Idempotent-Replayed"] = "true"
        return Response(body, status=status.HTTP_202_ACCEPTED, headers=headers)


class DebateBatchView(APIView):
    """`POST /api/v1/debates/batch/`: several debates started in one request."""

    parser_classes = [JSONParser]
    throttle_classes = [DebateBatchThrottle]

    @extend_schema(
        summary="Start several debates at once",
        description="Each item is the body of `POST /api/v1/debates/` (up to "
        "`DEBATE_API_BATCH_MAX`, 100 by default). All or nothing: every item is checked "
        "first, and if any is refused nothing is stored and the 400 gives each refused item's "
        'errors under its position (`{"debates": {"1": {"question": [...]}}}`, from 0). The '
        "debates are stored in one transaction and queued for the workers in order; each "
        "counts against the start rate (`DEBATE_API_CREATE_RATE`) as a single start does. "
        "There is no `Idempotency-Key` here: to retry safely, start debates one by one with a key.",
        request=s.DebateBatchSerializer,
        responses={
            202: s.DebateBatchAcceptedSerializer,
            400: FIELD_ERRORS,
            401: UNAUTHENTICATED,
            429: OpenApiResponse(
                BudgetExceededSerializer,
                description="Too many debates started (a `detail` message), or a spending "
                "limit is reached (`code` budget_exceeded); retry after `Retry-After` s.",
            ),
        },
    )
    def post(self, request, *args, **kwargs):
        serializer = s.DebateBatchSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        items = [
            {("query" if name == "question" else name): value for name, value in item.items()}
            for item in serializer.validated_data["debates"]
        ]
        try:
            debates = debate_create_many(
                items,
                created_by=request.user,
                api_token=request.auth if getattr(request.auth, "pk", None) else None,
            )
        except BatchInvalid as exc:
            renames = DebateViewSet.service_field_names
            refused = {
                str(i): validation_detail(e, renames)
                for i, e in enumerate(exc.errors)
                if e is not None
            }
            raise ValidationError({"debates": refused}) from None
        except BudgetExceeded as exc:
            raise BudgetLimitReached(exc.breach) from None
        body = s.DebateBatchAcceptedSerializer(
            {"debates": debates}, context={"request": request}
        ).data
        return Response(body, status=status.HTTP_202_ACCEPTED)


class MarkdownRenderer(renderers.BaseRenderer):
    """Lets a client ask for `Accept: text/markdown`; errors are then sent as their message."""

    media_type = "text/markdown"
    format = "md"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, dict) and "detail" in data:
            data = str(data["detail"])
        return str(data).encode(self.charset)


class DebateMarkdownView(APIView):
    """The transcript as Markdown, for token clients (the browser's download, over the API)."""

    renderer_classes = [renderers.JSONRenderer, MarkdownRenderer]

    @extend_schema(
        summary="Download a debate's transcript as Markdown",
        description="The same document as the debate page's Markdown download: every round, "
        "statement, challenge and vote, then the decision.",
        responses={
            (200, "text/markdown"): OpenApiResponse(OpenApiTypes.STR, description="Markdown."),
            401: UNAUTHENTICATED,
            404: NOT_FOUND,
        },
    )
    def get(self, request, pk):
        debate = get_object_or_404(
            selectors.debate_detail_queryset().filter(
                id__in=selectors.debates_visible_to(request.user).values("id")
            ),
            id=pk,
        )
        response = HttpResponse(
            render_markdown(debate), content_type="text/markdown; charset=utf-8"
        )
        response["Content-Disposition"] = f'inline; filename="debate-{debate.id}.md"'
        return response


class WebhookSecretView(APIView):
    """The secret your webhook events are signed with; POST replaces it."""

    parser_classes = [JSONParser]

    @extend_schema(
        summary="Read your webhook signing secret",
        responses={200: ws.WebhookSecretSerializer, 401: UNAUTHENTICATED},
    )
    def get(self, request):
        secret = account_services.webhook_secret_get(user=request.user)
        return Response(ws.WebhookSecretSerializer(secret).data)

    @extend_schema(
        summary="Rotate your webhook signing secret",
        request=None,
        responses={200: ws.WebhookSecretSerializer, 401: UNAUTHENTICATED},
    )
    def post(self, request):
        secret = account_services.webhook_secret_rotate(user=request.user)
        return Response(ws.WebhookSecretSerializer(secret).data)


class WebhookPingThrottle(CreateRateThrottle):
    scope = "webhook_ping"
    rate_setting = "WEBHOOK_PING_RATE"


class WebhookPingView(APIView):
    """Send a signed `ping` event to a receiver now and say what it answered."""

    parser_classes = [JSONParser]
    throttle_classes = [WebhookPingThrottle]

    @extend_schema(
        summary="Test a webhook receiver",
        description="Sends a signed `ping` event to `url` (or to the stored `callback_url` of "
        "one of your debates) the way every event is sent: the same checks on the URL, the "
        "same signature, no redirects followed, no retry. The answer says whether the receiver "
        "took it (2xx) and what it said. A URL that may not receive events is a 400.",
        request=ws.WebhookPingRequestSerializer,
        responses={
            200: ws.WebhookPingResultSerializer,
            400: FIELD_ERRORS,
            401: UNAUTHENTICATED,
            404: NOT_FOUND,
            429: OpenApiResponse(MESSAGE, description="Too many pings; retry after `Retry-After`."),
        },
        examples=[
            OpenApiExample(
                "A receiver",
                value={"url": "https://receiver.example.org/debate-events"},
                request_only=True,
            )
        ],
        callbacks=[
            OpenApiCallback(
                "ping",
                "{$request.body#/url}",
                extend_schema(
                    summary="The ping event",
                    description=SIGNATURE_SCHEME,
                    request=ws.WebhookPingEventSerializer,
                    responses=WEBHOOK_RECEIVED,
                ),
            )
        ],
    )
    def post(self, request):
        params = ws.WebhookPingRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        url = params.validated_data.get("url")
        if url is None:
            debate = get_object_or_404(
                selectors.debates_visible_to(request.user).filter(created_by=request.user),
                id=params.validated_data["debate"],
            )
            if not debate.callback_url:
                raise ValidationError({"debate": ["This debate has no callback_url to test."]})
            url = debate.callback_url
        if problem := callbacks.callback_url_problem(url):
            raise ValidationError({"url": [problem]})
        result = webhooks.ping(user=request.user, url=url)
        return Response(ws.WebhookPingResultSerializer(result).data)
