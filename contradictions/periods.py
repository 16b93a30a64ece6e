"""Reading the period a figure is for ("Q1-2024", "2024", "H2 2023", "2024-03", "March 2024",
"FY2023", "2024-03-31") as a date range. Plain Python.

The arbitrator is told each claim's range, so "Q1-2024" against "2024" is visibly a quarter
inside a year (not the same thing), and the latest end is the freshest figure. A label that is
not read stays a label: compared as text, with no freshness.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9


@dataclass(frozen=True)
class Period:
    start: date
    end: date

    def __str__(self) -> str:
        return f"{self.start.isoformat()} to {self.end.isoformat()}"


def _month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _year(text: str) -> int | None:
    year = int(text)
    return year if 1800 <= year <= 2200 else None


_PATTERNS: list[tuple[re.Pattern, str]] = [
    (re.compile(r"^(?:fy\s*)?(\d{4})$"), "year"),
    (re.compile(r"^q([1-4])\s*(\d{4})$"), "quarter"),
    (re.compile(r"^(\d{4})\s*q([1-4])$"), "quarter_year_first"),
    (re.compile(r"^h([12])\s*(\d{4})$"), "half"),
    (re.compile(r"^(\d{4})\s*h([12])$"), "half_year_first"),
    (re.compile(r"^(\d{4})\s+(\d{1,2})$"), "month_numeric"),
    (re.compile(r"^(\d{4})\s+(\d{1,2})\s+(\d{1,2})$"), "day"),
    (re.compile(r"^([a-z]+)\s*(\d{4})$"), "month_named"),
]


def parse_period(label: str) -> Period | None:
    """The date range a period label covers, or None when it is not one of the forms above."""
    text = re.sub(r"[\s\-_/.,]+", " ", (label or "").strip().lower()).strip()
    if not text:
        return None
    try:
        for pattern, kind in _PATTERNS:
            match = pattern.match(text)
            if not match:
                continue
            groups = match.groups()
            if kind == "year":
                year = _year(groups[0])
                return Period(date(year, 1, 1), date(year, 12, 31)) if year else None
            if kind in ("quarter", "quarter_year_first"):
                q, y = groups if kind == "quarter" else groups[::-1]
                year, quarter = _year(y), int(q)
                if not year:
                    return None
                first = 3 * quarter - 2
                return Period(date(year, first, 1), _month_end(year, first + 2))
            if kind in ("half", "half_year_first"):
                h, y = groups if kind == "half" else groups[::-1]
                year, half = _year(y), int(h)
                if not year:
                    return None
                first = 6 * half - 5
                return Period(date(year, first, 1), _month_end(year, first + 5))
            if kind == "month_numeric":
                year, month = _year(groups[0]), int(groups[1])
                if not year or not 1 <= month <= 12:
                    return None
                return Period(date(year, month, 1), _month_end(year, month))
            if kind == "day":
                year = _year(groups[0])
                if not year:
                    return None
                day = date(year, int(groups[1]), int(groups[2]))
                return Period(day, day)
            if kind == "month_named":
                month, year = MONTHS.get(groups[0]), _year(groups[1])
                if not month or not year:
                    return None
                return Period(date(year, month, 1), _month_end(year, month))
    except ValueError:  # e.g. 2024-02-31
        return None
    return None


def same_period(a: str, b: str) -> bool | None:
    """True or False when both labels are known (read as ranges, or equal as text); None when
    either is missing, so whether they measure the same period cannot be told."""
    if not (a or "").strip() or not (b or "").strip():
        return None
    pa, pb = parse_period(a), parse_period(b)
    if pa and pb:
        return pa == pb
    return " ".join(a.lower().split()) == " ".join(b.lower().split())
