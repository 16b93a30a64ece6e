"""How errors reach API clients: always JSON, always 4xx for bad input, with a message per field.

Services raise Django's `ValidationError` with a dict of field -> message; here it becomes a
400 like any serializer error. Views may rename service fields to API fields with
`service_field_names` (e.g. the service's `query` is the API's `question`).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import exceptions, status
from rest_framework.views import exception_handler


class IdempotencyKeyReused(exceptions.APIException):
    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    default_detail = (
        "This Idempotency-Key was already used with a different request. Use a new key for a "
        "new debate, or repeat the original request exactly."
    )
    default_code = "idempotency_key_reused"


def validation_detail(exc: DjangoValidationError, renames: dict[str, str]) -> dict[str, list]:
    if hasattr(exc, "error_dict"):
        return {renames.get(field, field): messages for field, messages in exc.message_dict.items()}
    return {"non_field_errors": exc.messages}


def api_exception_handler(exc, context):
    if isinstance(exc, DjangoValidationError):
        renames = getattr(context.get("view"), "service_field_names", {})
        exc = exceptions.ValidationError(detail=validation_detail(exc, renames))
    return exception_handler(exc, context)
