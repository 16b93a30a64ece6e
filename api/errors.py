"""How errors reach API clients: always JSON, always 4xx for bad input, with a message per field.

Services raise Django's `ValidationError` with a dict of field -> message; here it becomes a
400 like any serializer error. Views may rename service fields to API fields with
`service_field_names` (e.g. the service's `query` is the API's `question`).

A body larger than `DATA_UPLOAD_MAX_MEMORY_SIZE` is a JSON 413, and a message never echoes
more than an excerpt of what was sent (`EXCERPT` characters of any long string), nor a
character UTF-8 cannot carry (a lone surrogate is written as its escape).

`bad_request`, `not_found` and `server_error` are the site's 400, 404 and 500 handlers: JSON
under /api/, the usual pages elsewhere.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import JsonResponse
from django.views import defaults
from rest_framework import exceptions
from rest_framework.views import exception_handler


def validation_detail(exc: DjangoValidationError, renames: dict[str, str]) -> dict[str, list]:
    if hasattr(exc, "error_dict"):
        return {renames.get(field, field): messages for field, messages in exc.message_dict.items()}
    return {"non_field_errors": exc.messages}


EXCERPT = 200  # characters of a long message kept: enough to recognise the input


class PayloadTooLarge(exceptions.APIException):
    status_code = 413
    default_code = "payload_too_large"


def too_large_message() -> str:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return f"The request body is too large: at most {limit:,} bytes ({limit / 1024 / 1024:.1f} MB)."


def printable(text: str) -> str:
    """`text` with what UTF-8 cannot carry (a lone surrogate, such as "\\ud800" sent in JSON)
    written as its escape, so that echoing a client's input never breaks the response."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def shorten(data):
    """`data` (an error detail: strings, lists, dicts) with every long string cut to an
    excerpt that says how much was left out, and every string and key printable."""
    if isinstance(data, dict):
        return {printable(str(key)): shorten(value) for key, value in data.items()}
    if isinstance(data, list):
        return [shorten(value) for value in data]
    if isinstance(data, str):
        text = printable(data)
        if len(text) > EXCERPT * 2:
            text = f"{text[:EXCERPT]}… ({len(text) - EXCERPT:,} more characters left out)"
        if text is not data:
            return exceptions.ErrorDetail(text, code=getattr(data, "code", None))
    return data


def api_exception_handler(exc, context):
    if isinstance(exc, DjangoValidationError):
        renames = getattr(context.get("view"), "service_field_names", {})
        exc = exceptions.ValidationError(detail=validation_detail(exc, renames))
    elif isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge(too_large_message())
    response = exception_handler(exc, context)
    if response is not None and response.status_code < 500:
        response.data = shorten(response.data)
    return response


def bad_request(request, exception=None):
    """400s raised outside the API's views (e.g. a body read by a middleware)."""
    if request.path.startswith("/api/"):
        if isinstance(exception, RequestDataTooBig):
            return JsonResponse({"detail": too_large_message()}, status=413)
        return JsonResponse({"detail": "Bad request."}, status=400)
    return defaults.bad_request(request, exception)


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
