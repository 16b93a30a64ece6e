from __future__ import annotations

import datetime as dt

from django import forms
from django.utils import timezone

from analytics.charts import protocol_choices
from analytics.selectors import Filters
from schedules.models import DebateSchedule

DEFAULT_DAYS = 30
MAX_DAYS = 3 * 366


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
