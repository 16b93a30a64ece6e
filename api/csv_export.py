"""The one CSV writer every export goes through, safe to open in a spreadsheet: a queryset's
rows streamed (one query whatever their number), or a table already in memory (`rows_response`:
the analytics charts' numbers).

A list of `Column`s says what to write (a `values()` lookup, which may cross foreign keys, or an
ORM expression); `stream_csv` reads them with `values_list(...).iterator()`, so rows are fetched
in chunks from one server-side cursor and never become model instances (no per-row query).
`admin_action` wraps that as a Django admin action, guarded by the model's view permission:
"select all" on a filtered changelist exports every row the filters keep.

Text that a spreadsheet would read as a formula (starting with ``=``, ``+``, ``-``, ``@``, a tab
or a carriage return) is written with a leading apostrophe; numbers are written as numbers.
"""

from __future__ import annotations

import csv
import datetime as dt
import itertools
import json
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpResponse, StreamingHttpResponse
from django.utils import timezone

#: First characters that make a spreadsheet evaluate a cell (CSV / formula injection).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
#: Rows fetched per round trip of the server-side cursor.
CHUNK_SIZE = 2000


@dataclass(frozen=True)
class Column:
    """One column: its `header`, where its value comes from (`source`: a `values()` lookup such
    as ``"created_by__username"``, or an ORM expression), and an optional `format` applied to
    the value before it is written."""

    header: str
    source: Any
    format: Callable[[Any], Any] | None = None


def safe_cell(value: Any) -> Any:
    """The value as a CSV cell: text a spreadsheet would evaluate gets a leading apostrophe;
    None is empty; datetimes are ISO 8601 in UTC; JSON values are JSON; numbers stay numbers."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | Decimal):
        return value
    if isinstance(value, dt.datetime):
        if timezone.is_aware(value):
            value = value.astimezone(dt.UTC)
        return value.isoformat()
    if isinstance(value, dt.date | uuid.UUID):
        return str(value)
    if isinstance(value, dict | list):
        value = json.dumps(value, ensure_ascii=False, sort_keys=True)
    text = str(value)
    if text.startswith(FORMULA_PREFIXES):
        return "'" + text
    return text


class _Line:
    """What `csv.writer` writes to: hands back each line instead of buffering it."""

    def write(self, line: str) -> str:
        return line


def safe_lines(rows: Iterable[Sequence[Any]]) -> Iterator[str]:
    """Each row as a CSV line, every cell through `safe_cell`: the one writer of every export."""
    writer = csv.writer(_Line())
    for row in rows:
        yield writer.writerow([safe_cell(value) for value in row])


def rows_response(rows: Iterable[Sequence[Any]], *, filename: str) -> HttpResponse:
    """A `text/csv` download of a table held in memory (its first row the header)."""
    response = HttpResponse("".join(safe_lines(rows)), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "no-store"
    return response


def csv_lines(queryset: QuerySet, columns: Sequence[Column]) -> Iterator[str]:
    """The header, then one line per row of `queryset` (its order kept): one query."""
    names: list[str] = []
    annotations: dict[str, Any] = {}
    for index, column in enumerate(columns):
        if isinstance(column.source, str):
            names.append(column.source)
        else:
            alias = f"csv_column_{index}"
            annotations[alias] = column.source
            names.append(alias)
    if annotations:
        queryset = queryset.annotate(**annotations)
    rows = (
        [
            column.format(value) if column.format else value
            for column, value in zip(columns, row, strict=True)
        ]
        for row in queryset.values_list(*names).iterator(chunk_size=CHUNK_SIZE)
    )
    yield from safe_lines(itertools.chain([[c.header for c in columns]], rows))


def filename_for(stem: str) -> str:
    return f"{stem}-{timezone.now().strftime('%Y%m%d-%H%M%S')}.csv"


def stream_csv(
    queryset: QuerySet, columns: Sequence[Column], *, stem: str
) -> StreamingHttpResponse:
    """A streamed `text/csv` download of `queryset`, named ``<stem>-<UTC time>.csv``."""
    response = StreamingHttpResponse(
        csv_lines(queryset, columns), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{filename_for(stem)}"'
    response["Cache-Control"] = "no-store"
    return response


def admin_action(
    columns: Iterable[Column],
    *,
    name: str,
    stem: str,
    description: str = "Export the selected rows as CSV",
):
    """A Django admin action (`name` is its key in the form) exporting the selected rows (all
    the filtered rows with "select all") as CSV, offered to users with the model's view
    permission."""
    columns = tuple(columns)

    @admin.action(description=description, permissions=["view"])
    def export_csv(modeladmin, request, queryset):
        return stream_csv(queryset, columns, stem=stem)

    export_csv.__name__ = export_csv.__qualname__ = name
    return export_csv
