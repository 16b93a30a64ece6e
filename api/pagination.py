"""The two ways API lists are paged: cursors (debates, runs) and numbered pages (the review
queue). Both take their page size from the view's validated query, and answer a bad cursor or a
page past the end with a 400 saying what to do. Also the paginator of the pages and admin
changelists over whole tables (`EstimatedCountPaginator`)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.db import connections
from django.db.models import QuerySet
from django.utils.functional import cached_property
from rest_framework import exceptions
from rest_framework.pagination import CursorPagination, PageNumberPagination


class OrderedCursorPagination(CursorPagination):
    """Cursor pagination in the order the client chose (validated by the view's query
    serializer, which also owns `page_size`). A cursor that cannot be read is a 400."""

    ordering = "-created_at"
    page_size = 20
    invalid_cursor_message = "The cursor is not valid; use the `next` or `previous` link as given."

    def paginate_queryset(self, queryset, request, view=None):
        self.view_page_size = view.page_size
        return super().paginate_queryset(queryset, request, view)

    def get_page_size(self, request):
        return self.view_page_size

    def get_ordering(self, request, queryset, view):
        return view.ordering

    def decode_cursor(self, request):
        try:
            return super().decode_cursor(request)
        except exceptions.NotFound:
            raise exceptions.ValidationError({"cursor": self.invalid_cursor_message}) from None

    def get_schema_operation_parameters(self, view):
        return [
            parameter
            for parameter in super().get_schema_operation_parameters(view)
            if parameter["name"] == self.cursor_query_param
        ]


class NumberedPagination(PageNumberPagination):
    """Numbered pages of the view's validated `page_size`; a page past the end is a 400."""

    def paginate_queryset(self, queryset, request, view=None):
        self.view_page_size = view.page_size
        try:
            return super().paginate_queryset(queryset, request, view)
        except exceptions.NotFound:
            last = self.django_paginator_class(queryset, self.view_page_size).num_pages
            pages = "is only 1 page" if last == 1 else f"are only {last} pages"
            raise exceptions.ValidationError(
                {"page": [f"There {pages} of items for these filters."]}
            ) from None

    def get_page_size(self, request):
        return self.view_page_size

    def get_schema_operation_parameters(self, view):
        return []  # `page` and `page_size` come from the query serializer


class EstimatedCountPaginator(Paginator):
    """A paginator that does not count a whole large table: for an unfiltered queryset its
    count is PostgreSQL's estimate of the table's rows (`pg_class.reltuples`, kept by
    autovacuum and ANALYZE), read in one cheap query, when that estimate is at least
    `exact_below`; filtered lists and small tables are counted exactly. `estimated` says which,
    so a page can say "about"."""

    exact_below = 10_000
    estimated = False

    def validate_number(self, number):
        """Pages near the estimated end are counted exactly, so that the last rows stay
        reachable when the estimate is short, and a page past the end is still an error."""
        if self.estimated:
            try:
                wanted = int(number)
            except (TypeError, ValueError):
                wanted = 1  # the parent says what is wrong with it
            if wanted >= self.num_pages - 1:
                self.__dict__["count"] = self.object_list.count()
                self.__dict__.pop("num_pages", None)
                self.estimated = False
        return super().validate_number(number)

    @cached_property
    def count(self) -> int:
        queryset = self.object_list
        if isinstance(queryset, QuerySet) and not queryset.query.where:
            table = queryset.model._meta.db_table
            with connections[queryset.db].cursor() as cursor:
                cursor.execute(
                    "SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass(%s)", [table]
                )
                row = cursor.fetchone()
            if row and row[0] is not None and row[0] >= self.exact_below:
                self.estimated = True
                return int(row[0])
        return super().count
