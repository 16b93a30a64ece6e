from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone

from agents import routing
from debates import outcomes
from debates.default_protocol import default_protocol
from debates.models import Debate
from protocols import PROTOCOLS, OptionError, effective_options


def option_field_name(protocol: str, option: str) -> str:
    return f"{protocol}-{option}"


def _shown(value: Any) -> str:
    if value == "":
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:g}" if isinstance(value, float) else str(value)


def option_help(spec: dict[str, Any]) -> str:
    """The option's description with its default and limits, in words."""
    parts = [spec.get("description", "").rstrip(".") + "."]
    if "choices" in spec:
        parts.append("One of " + ", ".join(_shown(c) for c in spec["choices"]) + ".")
    elif spec["type"] in ("int", "float") and "min" in spec and "max" in spec:
        kind = "A whole number" if spec["type"] == "int" else "A number"
        parts.append(f"{kind} from {_shown(spec['min'])} to {_shown(spec['max'])}.")
    elif spec["type"] == "str" and "max" in spec:
        parts.append(f"At most {spec['max']} characters.")
    parts.append(f"Default: {_shown(spec['default'])}.")
    return " ".join(parts)


def option_field(spec: dict[str, Any]) -> forms.Field:
    """A simple input for one option of a protocol's schema. Every value is read as text and
    checked by the registry (`effective_options`), so the form and the API say the same thing
    about a bad value; an empty input means the default."""
    default = spec["default"]
    if "choices" in spec or spec["type"] == "bool":
        values = spec.get("choices", [True, False])
        widget = forms.Select(
            choices=[
                (
                    str(v).lower() if isinstance(v, bool) else v,
                    _shown(v) + (" (default)" if v == default else ""),
                )
                for v in values
            ]
        )
        initial = str(default).lower() if isinstance(default, bool) else default
    else:
        attrs = {"inputmode": {"int": "numeric", "float": "decimal"}.get(spec["type"], "text")}
        if spec["type"] == "str" and "max" in spec:
            attrs["maxlength"] = spec["max"]
        if spec["type"] == "str" and default == "":
            attrs["placeholder"] = "default"
        widget = forms.TextInput(attrs=attrs)
        initial = _shown(default) if default != "" else ""
    return forms.CharField(
        required=False, strip=True, widget=widget, initial=initial, help_text=option_help(spec)
    )


@dataclass
class OptionGroup:
    """One protocol on the form: its name, label and description, and its option fields."""

    name: str
    label: str
    description: str
    selector: bool
    fields: list


class DebateStartForm(forms.Form):
    """What a person types to start a debate: the question, a protocol from the registry and
    that protocol's options (one simple input per option, generated from its schema). The
    service validates and screens the question (`services.debate_create`); its messages are
    shown on this form."""

    question = forms.CharField(
        label="Question",
        required=False,
        strip=False,
        widget=forms.Textarea(
            attrs={
                "rows": 4,
                "required": True,
                "autofocus": True,
                "aria-describedby": "question-help",
            }
        ),
        help_text="Up to 2000 characters. The agents see it as data to judge, not as orders.",
    )
    protocol = forms.ChoiceField(
        label="Protocol",
        choices=[(name, protocol.label) for name, protocol in PROTOCOLS.items()],
        initial=default_protocol,
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, cls in PROTOCOLS.items():
            for option, spec in cls.options_schema.items():
                field = option_field(spec)
                field.label = option
                self.fields[option_field_name(name, option)] = field

    def option_groups(self) -> list[OptionGroup]:
        return [
            OptionGroup(
                name=name,
                label=cls.label,
                description=getattr(cls, "description", ""),
                selector=getattr(cls, "is_selector", False),
                fields=[self[option_field_name(name, o)] for o in cls.options_schema],
            )
            for name, cls in PROTOCOLS.items()
        ]

    def clean(self):
        data = super().clean()
        protocol = data.get("protocol")
        cls = PROTOCOLS.get(protocol)
        if cls is None:
            return data
        given = {
            option: value
            for option in cls.options_schema
            if (value := data.get(option_field_name(protocol, option))) not in (None, "")
        }
        try:
            effective_options(cls, given)
        except OptionError as exc:
            for option, message in exc.errors.items():
                field = option_field_name(protocol, option)
                self.add_error(field if field in self.fields else None, message)
        model_field = option_field_name(protocol, "model")
        if model_field in self.fields and not self.has_error(model_field):
            try:  # said next to its box; `debate_create` checks it again
                routing.check_model_choice(given.get("model"))
            except ValidationError as exc:
                self.add_error(model_field, [f"model: {m}" for m in exc.messages])
        data["options"] = given
        return data


class DebateFilterForm(forms.Form):
    """The debate list's search and filters, read from (and kept in) the URL."""

    q = forms.CharField(
        required=False,
        max_length=200,
        label="Search",
        widget=forms.TextInput(attrs={"type": "search", "placeholder": "Text in the question"}),
    )
    status = forms.ChoiceField(required=False, choices=[("", "Any status")])
    decision = forms.ChoiceField(required=False, choices=[("", "Any decision")])
    protocol = forms.ChoiceField(required=False, choices=[("", "Any protocol")])
    review_status = forms.ChoiceField(
        required=False,
        label="Review",
        choices=[
            ("", "Any review"),
            ("none", "No review needed"),
            ("pending", "Pending"),
            ("resolved", "Resolved"),
            ("dismissed", "Dismissed"),
        ],
    )
    created_after = forms.DateField(
        required=False, label="From", widget=forms.DateInput(attrs={"type": "date"})
    )
    created_before = forms.DateField(
        required=False,
        label="Until",
        help_text="Inclusive.",
        widget=forms.DateInput(attrs={"type": "date"}),
    )
    # As the analytics page counts labelled debates (its charts link here with them).
    outcome = forms.ChoiceField(
        required=False,
        label="Review outcome",
        choices=[("", "Any outcome"), *outcomes.OUTCOMES.items()],
    )
    confidence = forms.TypedChoiceField(
        required=False,
        label="Confidence",
        coerce=int,
        empty_value=None,
        choices=[
            ("", "Any confidence"),
            *((b, outcomes.band_label(b)) for b in range(outcomes.CONFIDENCE_BANDS)),
        ],
    )
    model = forms.CharField(
        required=False,
        max_length=200,
        label="Model",
        widget=forms.TextInput(attrs={"placeholder": "Any model"}),
    )
    schedule = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["status"].choices += list(Debate.Status.choices)
        decisions = sorted({d for p in PROTOCOLS.values() for d in p.decisions})
        self.fields["decision"].choices += [(d, d) for d in decisions]
        self.fields["protocol"].choices += [
            (name, protocol_name(name)) for name, cls in PROTOCOLS.items() if not cls.is_selector
        ]

    def clean(self):
        data = super().clean()
        after, before = data.get("created_after"), data.get("created_before")
        if after and before and after > before:
            self.add_error("created_before", "Pick a date on or after the 'From' date.")
        return data

    def filters(self) -> dict:
        """Arguments for `selectors.debate_list` (empty when the form is not valid)."""
        if not self.is_valid():
            return {}
        data = self.cleaned_data
        review = data.get("review_status")
        after, before = data.get("created_after"), data.get("created_before")
        return {
            "search": data.get("q", ""),
            "status": data.get("status", ""),
            "decision": data.get("decision", ""),
            "protocol": data.get("protocol", ""),
            "review_status": None if not review else ("" if review == "none" else review),
            "created_after": _day_start(after) if after else None,
            "created_before": _day_start(before + timedelta(days=1)) if before else None,
            "outcome": data.get("outcome", ""),
            "confidence_band": data.get("confidence"),
            "schedule_id": data.get("schedule"),
            "model": (data.get("model") or "").strip(),
        }


def _day_start(day):
    return timezone.make_aware(datetime.combine(day, time.min))


def protocol_name(name: str) -> str:
    """A protocol's human name: its label up to the colon ("S4", "Round robin")."""
    cls = PROTOCOLS.get(name)
    return cls.label.split(":")[0].strip() if cls else name
