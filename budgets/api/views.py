"""GET /api/v1/usage/: what was spent, per user, API token and model, and the limits."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from api.schema import FIELD_ERRORS, FORBIDDEN, UNAUTHENTICATED
from budgets import selectors
from budgets.api.serializers import UsageQuerySerializer, UsageSerializer

VIEW_EVERYONE = "budgets.view_usage"


class UsageView(APIView):
    @extend_schema(
        summary="Read usage and spending limits",
        description="Calls, tokens and cost per user, API token and model, day by day summed "
        "over `since`..`until`, with the limits in force and what is used of them. Ordinary "
        "users see their own; staff with `budgets.view_usage` see everyone's, or one user's "
        "with `user`.",
        parameters=[UsageQuerySerializer],
        responses={
            200: UsageSerializer,
            400: FIELD_ERRORS,
            401: UNAUTHENTICATED,
            403: FORBIDDEN,
        },
        examples=[
            OpenApiExample(
                "One user's month",
                value={
                    "since": "2026-11-01",
                    "until": "2026-11-24",
                    "totals": {
                        "calls": 12,
                        "tokens_in": 5400,
                        "tokens_out": 1800,
                        "cost_usd": "0.00189000",
                    },
                    "rows": [
                        {
                            "user_id": 7,
                            "username": "ana",
                            "token_id": 3,
                            "token_name": "CI job",
                            "model": "openai/gpt-4o-mini",
                            "calls": 12,
                            "tokens_in": 5400,
                            "tokens_out": 1800,
                            "cost_usd": "0.00189000",
                        }
                    ],
                    "limits": [
                        {
                            "limit": "user_daily_cost",
                            "unit": "USD",
                            "limit_value": "5.0000",
                            "used": "0.00189000",
                            "reserved": "0.00000000",
                            "remaining": "4.99811000",
                            "resets_at": "2026-11-25T00:00:00Z",
                        }
                    ],
                },
                response_only=True,
            )
        ],
    )
    def get(self, request):
        params = UsageQuerySerializer(data=request.query_params.dict())
        params.is_valid(raise_exception=True)
        query = params.validated_data
        everyone = request.user.has_perm(VIEW_EVERYONE)
        if "user" in query and not everyone:
            raise PermissionDenied("Only staff with budgets.view_usage may ask for another user.")
        if everyone:
            user_id = query.get("user")
        else:
            user_id = request.user.pk
        rows = selectors.usage_rows(since=query["since"], until=query["until"], user_id=user_id)
        token = request.auth if getattr(request.auth, "pk", None) else None
        limits = selectors.limits_status(
            user_id=user_id if user_id is not None else request.user.pk,
            token_id=token.pk if token is not None and user_id == request.user.pk else None,
        )
        data = {
            "since": query["since"],
            "until": query["until"],
            "totals": selectors.totals(rows),
            "rows": rows,
            "limits": limits,
        }
        return Response(UsageSerializer(data).data)
