"""The API's JSON parser: every problem with a body is a 400 saying what to fix, never a 500.

DRF's own parser turns malformed JSON into a 400 but lets anything else the decoder raises
through (e.g. `RecursionError` for a body nested thousands of levels deep). Here every failure
to read the body becomes a `ParseError`, and bodies nested deeper than `MAX_DEPTH` are refused
before any view sees them. A body over `DATA_UPLOAD_MAX_MEMORY_SIZE` is a 413
(`api.errors`).
"""

from __future__ import annotations

from django.core.exceptions import RequestDataTooBig
from rest_framework import parsers
from rest_framework.exceptions import ParseError

MAX_DEPTH = 64


def depth_problem(data, limit: int = MAX_DEPTH) -> bool:
    """Whether `data` nests lists/objects more than `limit` levels deep (no recursion)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except (ParseError, RequestDataTooBig):
            raise
        except RecursionError:
            raise ParseError(
                f"JSON parse error - the body is nested too deeply: at most {MAX_DEPTH} levels."
            ) from None
        except Exception as exc:  # noqa: BLE001 - whatever the decoder raises is bad input
            raise ParseError(f"JSON parse error - {type(exc).__name__}.") from None
        if depth_problem(data):
            raise ParseError(
                f"JSON parse error - the body is nested too deeply: at most {MAX_DEPTH} levels."
            )
        return data
