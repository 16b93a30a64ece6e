"""Links to many rows of one kind, reversed once: a list of 200 rows reversed 200 URLs that
differ only in the row's key (each `reverse()` walks the URL resolver again). The pages and
the API lists link their rows through `row_links`."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from django.urls import reverse

#: Stand for a row's key while the URL is reversed (no real key looks like them).
PLACEHOLDER_INT = 987_654_321_987_654_321
PLACEHOLDER_UUID = uuid.UUID(int=0)


def row_links(viewname: str, *, key: type = int, request=None) -> Callable[[Any], str]:
    """`link(row_key)` -> the URL of `viewname` for that row, as `reverse(viewname,
    args=[row_key])` gives it (absolute, like `request.build_absolute_uri`, when `request` is
    given). `key`: the type of the keys, int or uuid.UUID."""
    placeholder = PLACEHOLDER_UUID if key is uuid.UUID else PLACEHOLDER_INT
    shape = reverse(viewname, args=[placeholder])
    if request is not None:
        shape = request.build_absolute_uri(shape)
    marker = str(placeholder)
    return lambda row_key: shape.replace(marker, str(row_key), 1)
