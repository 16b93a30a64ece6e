from __future__ import annotations

from django import forms

from debates.default_protocol import default_protocol
from evaluation import driving
from protocols import PROTOCOLS


def _protocols() -> list[tuple[str, str]]:
    return [(name, name) for name, cls in sorted(PROTOCOLS.items()) if not cls.is_selector]


def _sets() -> list[tuple[str, str]]:
    return [(name, name) for name in driving.shipped_sets()]


class EvaluationStartForm(forms.Form):
    """Start a run of a shipped set (evaluation_sets/); the service checks the rest
    (`driving.run_launch`) and its messages are shown on this form."""

    set = forms.ChoiceField(label="Set", choices=_sets)
    protocol = forms.ChoiceField(label="Protocol", choices=_protocols, initial=default_protocol)
    model = forms.CharField(
        label="Model",
        required=False,
        max_length=200,
        help_text="A model or model group for every agent; empty: as configured.",
        widget=forms.TextInput(attrs={"placeholder": "as configured"}),
    )
    baselines = forms.BooleanField(
        label="With baselines (majority vote, single agents)", required=False, initial=True
    )
