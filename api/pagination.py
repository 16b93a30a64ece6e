"""The two ways API lists are paged: cursors (debates, runs) and numbered pages (the review
queue). Both take their page size from the view's validated query, and answer a bad cursor or a
page past the end with a 400 saying what to do."""

from __future__ import annotations

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
