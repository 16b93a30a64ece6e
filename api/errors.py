"""How errors reach API clients: always JSON, always 4xx for bad input, with a message per field.

Services raise Django's `ValidationError` with a dict of field -> message; here it becomes a
400 like any serializer error. Views may rename service fields to API fields with
`service_field_names` (e.g. the service's `query` is the API's `question`).

`not_found` and `server_error` are the site's 404 and 500 handlers: JSON under /api/, the usual
pages elsewhere.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import JsonResponse
from django.views import defaults
from rest_framework import exceptions
from rest_framework.views import exception_handler


def validation_detail(exc: DjangoValidationError, renames: dict[str, str]) -> dict[str, list]:
    if hasattr(exc, "error_dict"):
        return {renames.get(field, field): messages for field, messages in exc.message_dict.items()}
    return {"non_field_errors": exc.messages}


def api_exception_handler(exc, context):
    if isinstance(exc, DjangoValidationError):
        renames = getattr(context.get("view"), "service_field_names", {})
        exc = exceptions.ValidationError(detail=validation_detail(exc, renames))
    return exception_handler(exc, context)


def not_found(request, exception=None):
    if request.path.startswith("/api/"):
        return JsonResponse(
            {"detail": "Not found. The endpoints are listed at /api/docs/."}, status=404
        )
    return defaults.page_not_found(request, exception)


def server_error(request):
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Internal server error."}, status=500)
    return defaults.server_error(request)
