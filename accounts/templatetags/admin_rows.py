"""`{% admin_result_list cl %}`: the rows of an admin changelist exactly as Django's
`{% result_list cl %}` renders them (`admin_list.items_for_result`), with the work that is the
same for every row done once a page.

Django works each cell's column out again for every row: the field or the display callable
(`lookup_field`), the empty value, the choices (a new dict per cell), the boolean icons'
static URLs, the change URL (a `reverse()` and the preserved filters per row) and the action
checkbox (a form widget rendered through the template engine per row). On a page of 50 debates
that was half of the page's CPU. Here each column is worked out once a page, and a row only
reads its values. A changelist this does not cover (a `list_editable` form, a popup, a column
that is neither a model field nor a display callable of the admin) is left whole to Django's
tag. `tests/accounts/test_admin_rows.py` checks that the two give the same HTML.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable

from django import template
from django.contrib.admin import helpers
from django.contrib.admin.options import ModelAdmin
from django.contrib.admin.templatetags import admin_list
from django.contrib.admin.templatetags.admin_urls import add_preserved_filters
from django.contrib.admin.templatetags.base import InclusionAdminNode
from django.contrib.admin.utils import (
    FieldIsAForeignKeyColumnName,
    _get_non_gfk_field,
    display_for_field,
    display_for_value,
)
from django.core.exceptions import FieldDoesNotExist
from django.core.validators import EMPTY_VALUES
from django.db import models
from django.urls import NoReverseMatch, reverse
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext

register = template.Library()

#: Stands for a row's primary key in the change URL reversed once a page.
PK_PLACEHOLDER = "0PKPLACEHOLDER0"
DATED = (datetime.date, datetime.time)
Cell = Callable[[models.Model], tuple[object, bool]]  # row -> (what it shows, nowrap)


def _icons() -> Callable:
    """The boolean icons (`admin_list._boolean_icon`), each made once a page."""
    made = {}

    def icon(value):
        if value not in made:
            made[value] = admin_list._boolean_icon(value)
        return made[value]

    return icon


def _field_cell(field, name: str, empty, link: bool, icon: Callable) -> Cell:
    """A model field's cell (`display_for_field`), its choices read once."""
    if isinstance(field.remote_field, models.ManyToOneRel):

        def related(row):
            value = getattr(row, name)
            return (empty if value is None else value), False

        return related
    if field.name != "password" and getattr(field, "flatchoices", None):
        try:
            choices = dict(field.flatchoices)
        except TypeError:
            choices = None
        if choices is not None:
            return lambda row: (choices.get(getattr(row, name), empty), False)
    if isinstance(field, models.BooleanField):
        return lambda row: (icon(getattr(row, name)), False)
    return lambda row: (display_for_field(getattr(row, name), field, empty, link), False)


def _value_cell(get: Callable, empty, boolean: bool, icon: Callable) -> Cell:
    """A display callable's (or the primary key's) cell (`display_for_value`)."""

    def cell(row):
        value = get(row)
        if boolean:
            return icon(None if value in EMPTY_VALUES else value), isinstance(value, DATED)
        return display_for_value(value, empty), isinstance(value, DATED)

    return cell


def _checkbox(row) -> tuple[SafeString, bool]:
    """`ModelAdmin.action_checkbox`'s HTML, without rendering a form widget's template."""
    label = format_html(gettext("Select this object for an action - {}"), str(row))
    return format_html(
        '<input type="checkbox" name="{}" value="{}" class="action-select" aria-label="{}">',
        helpers.ACTION_CHECKBOX_NAME,
        str(row.pk),
        label,
    ), False


class Column:
    """One column's cells: how a row's cell is made, its tag and classes, and whether it
    links to the row's change page."""

    def __init__(self, cell: Cell, tag: str, classes: list[str], link: bool):
        self.cell, self.tag, self.classes, self.link = cell, tag, classes, link


def _columns(cl) -> list[Column] | None:
    """The page's columns (`items_for_result`), or None when one needs Django's own."""
    model_admin = cl.model_admin
    empty_default = model_admin.get_empty_value_display()
    icon = _icons()
    columns, first = [], True
    for index, name in enumerate(cl.list_display):
        if not isinstance(name, str) or name == "__str__" or "__" in name:
            return None
        classes = [f"field-{admin_list._coerce_field_name(name, index)}"]
        if cl.list_display_links is None:
            link = False
        elif first and not cl.list_display_links:
            link = True
        else:
            link = name in cl.list_display_links
        try:
            field = _get_non_gfk_field(cl.lookup_opts, name)
        except (FieldDoesNotExist, FieldIsAForeignKeyColumnName):
            field = None
        if field is not None and not field.auto_created:
            cell = _field_cell(field, name, empty_default, link, icon)
            if isinstance(field, (models.DateField, models.TimeField, models.ForeignKey)):
                classes.append("nowrap")
        elif field is not None:  # an automatic primary key
            cell = _value_cell(
                lambda row, name=name: getattr(row, name), empty_default, False, icon
            )
        elif name == "action_checkbox":
            if type(model_admin).action_checkbox is not ModelAdmin.action_checkbox:
                return None
            classes = ["action-checkbox"]
            cell = _checkbox
        elif callable(getattr(model_admin, name, None)):
            attr = getattr(model_admin, name)
            empty = getattr(attr, "empty_value_display", empty_default)
            cell = _value_cell(attr, empty, getattr(attr, "boolean", False), icon)
        else:
            return None
        tag = "td"
        if link:
            tag, first = ("th" if first else "td"), False
        columns.append(Column(cell, tag, classes, link))
    return columns


def _change_url(cl) -> Callable:
    """A row's change URL with the list's filters (`ChangeList.url_for_result`, then
    `add_preserved_filters`): reversed once a page when the key is a number or a UUID (which
    `admin.utils.quote` leaves as they are), else per row."""
    preserved = {"preserved_filters": cl.preserved_filters, "opts": cl.opts}
    if isinstance(cl.lookup_opts.pk, (models.AutoField, models.UUIDField)):
        try:
            shape = add_preserved_filters(
                preserved,
                reverse(
                    f"admin:{cl.opts.app_label}_{cl.opts.model_name}_change",
                    args=(PK_PLACEHOLDER,),
                    current_app=cl.model_admin.admin_site.name,
                ),
            )
        except NoReverseMatch:
            return lambda row: None
        return lambda row: shape.replace(PK_PLACEHOLDER, str(getattr(row, cl.pk_attname)), 1)

    def url(row):
        try:
            return add_preserved_filters(preserved, cl.url_for_result(row))
        except NoReverseMatch:
            return None

    return url


def _row(columns: list[Column], change_url: Callable, row) -> SafeString:
    cells, url = [], None
    for column in columns:
        shown, nowrap = column.cell(row)
        shown = conditional_escape(shown)
        if column.link:
            url = url or change_url(row)
            if url is not None:
                shown = f'<a href="{conditional_escape(url)}">{shown}</a>'
        classes = " ".join([*column.classes, "nowrap"] if nowrap else column.classes)
        cells.append(f'<{column.tag} class="{classes}">{shown}</{column.tag}>')
    return SafeString("".join(cells))


def rows(cl) -> list | None:
    """The page's rows as `{% result_list %}` hands them to its template (one cell holding a
    row's cells), or None when this changelist needs Django's own."""
    if cl.formset is not None or cl.is_popup or cl.to_field:
        return None
    columns = _columns(cl)
    if columns is None:
        return None
    change_url = _change_url(cl)
    return [admin_list.ResultList(None, [_row(columns, change_url, r)]) for r in cl.result_list]


def admin_result_list(cl):
    """`admin_list.result_list` with the rows made by `rows`."""
    made = rows(cl)
    if made is None:
        return admin_list.result_list(cl)
    headers = list(admin_list.result_headers(cl))
    return {
        "cl": cl,
        "result_hidden_fields": [],
        "result_headers": headers,
        "num_sorted_fields": sum(1 for h in headers if h["sortable"] and h["sorted"]),
        "results": made,
    }


@register.tag(name="admin_result_list")
def admin_result_list_tag(parser, token):
    return InclusionAdminNode(
        "admin_result_list",
        parser,
        token,
        func=admin_result_list,
        template_name="change_list_results.html",
        takes_context=False,
    )
