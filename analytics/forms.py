from __future__ import annotations

import datetime as dt

from django import forms
from django.http import QueryDict
from django.utils import timezone

from analytics.charts import protocol_choices
from analytics.selectors import Filters
from schedules.models import DebateSchedule

DEFAULT_DAYS = 30
MAX_DAYS = 3 * 366
#: The relative ranges offered above the charts: (label, days ending today). Figures are by
#: day, so the last 24 hours are the two days they span: yesterday and today.
RELATIVE_RANGES = (("Last 24 h", 2), ("Last 7 days", 7), ("Last 30 days", 30))


class AnalyticsFilterForm(forms.Form):
    """The analytics page's filters, read from (and kept in) the URL. Without dates, the last
    30 days."""

    since = forms.DateField(
        required=False, label="From", widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        required=False,
        label="Until",
        help_text="Inclusive.",
        widget=forms.DateInput(attrs={"type": "date"}),
    )
    protocol = forms.ChoiceField(required=False, choices=[("", "Any protocol")])
    schedule = forms.ModelChoiceField(
        required=False,
        queryset=DebateSchedule.objects.order_by("name"),
        empty_label="Any schedule",
        error_messages={"invalid_choice": "No such schedule: pick one from the list."},
    )
    model = forms.CharField(
        required=False,
        max_length=200,
        help_text="A model as calls record it, e.g. openai/gpt-4o-mini.",
        widget=forms.TextInput(attrs={"placeholder": "Any model", "list": "known-models"}),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["protocol"].choices += protocol_choices()

    def clean(self):
        data = super().clean()
        today = timezone.localdate()
        until = data.get("until") or today
        since = data.get("since") or until - dt.timedelta(days=DEFAULT_DAYS - 1)
        if "since" in self.errors or "until" in self.errors:
            return data
        if since > until:
            self.add_error("until", "Pick a date on or after the 'From' date.")
        elif (until - since).days + 1 > MAX_DAYS:
            self.add_error("since", f"Pick a range of at most {MAX_DAYS} days.")
        data["since"], data["until"] = since, until
        return data

    def filters(self) -> Filters:
        data = self.cleaned_data
        return Filters(
            since=data["since"],
            until=data["until"],
            protocol=data.get("protocol") or "",
            schedule_id=data["schedule"].pk if data.get("schedule") else None,
            model=(data.get("model") or "").strip(),
        )


def relative_ranges(query: QueryDict, filters: Filters | None) -> list[tuple[str, str, bool]]:
    """Each relative range as (label, the page's address with its dates, whether it is the range
    shown): the other filters are kept."""
    today = timezone.localdate()
    found = []
    for label, days in RELATIVE_RANGES:
        since = today - dt.timedelta(days=days - 1)
        params = query.copy()
        params["since"], params["until"] = since.isoformat(), today.isoformat()
        current = filters is not None and (filters.since, filters.until) == (since, today)
        found.append((label, f"?{params.urlencode()}", current))
    return found
