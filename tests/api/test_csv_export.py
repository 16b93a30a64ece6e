"""The shared CSV writer: cells a spreadsheet would evaluate are neutralised, values keep their
meaning."""

from __future__ import annotations

import csv
import datetime as dt
import io
import uuid
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from api.csv_export import FORMULA_PREFIXES, safe_cell


def test_text_starting_like_a_formula_gets_an_apostrophe():
    assert safe_cell('=HYPERLINK("http://x.example","click")') == (
        '\'=HYPERLINK("http://x.example","click")'
    )
    assert safe_cell("+1+1") == "'+1+1"
    assert safe_cell("-2+3") == "'-2+3"
    assert safe_cell("@SUM(A1:A2)") == "'@SUM(A1:A2)"
    assert safe_cell("\t=1") == "'\t=1"
    assert safe_cell("\r=1") == "'\r=1"


def test_ordinary_values_are_written_as_they_are():
    assert safe_cell("Is Bitcoin a good investment?") == "Is Bitcoin a good investment?"
    assert safe_cell("a = b") == "a = b"
    assert safe_cell(None) == ""
    assert safe_cell(True) == "true"
    assert safe_cell(-3) == -3  # a number is not a formula
    assert safe_cell(Decimal("-0.000120")) == Decimal("-0.000120")
    assert safe_cell(dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)) == "2026-01-02T03:04:05+00:00"
    some = uuid.UUID("12345678-1234-5678-1234-567812345678")
    assert safe_cell(some) == str(some)
    assert safe_cell({"b": 1, "a": "=x"}) == '{"a": "=x", "b": 1}'
    assert safe_cell(["=1"]) == '["=1"]'  # starts with [: not a formula


@given(st.text())
def test_no_text_cell_can_start_a_formula(text):
    cell = safe_cell(text)
    assert not cell.startswith(FORMULA_PREFIXES)
    assert cell in (text, "'" + text)


@given(st.lists(st.text(), min_size=1, max_size=5))
def test_a_row_survives_the_csv_round_trip(values):
    out = io.StringIO(newline="")
    csv.writer(out).writerow([safe_cell(v) for v in values])
    (row,) = csv.reader(io.StringIO(out.getvalue(), newline=""))
    read_back = [
        cell[1:] if value.startswith(FORMULA_PREFIXES) else cell
        for cell, value in zip(row, values, strict=True)
    ]
    assert read_back == values
