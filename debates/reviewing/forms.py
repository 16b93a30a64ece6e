"""The verdicts an analyst gives a debate's review item on its page."""

from django import forms

from reviews.forms import NoteForm
from reviews.models import ReviewItem


class ResolveForm(NoteForm):
    verdict = forms.ChoiceField(
        widget=forms.RadioSelect,
        choices=[
            (ReviewItem.Verdict.UPHOLD, "Uphold the machine's decision"),
            (ReviewItem.Verdict.OVERRIDE, "Override it with the decision below"),
        ],
        error_messages={"required": "Choose a verdict: uphold or override."},
    )
    decision = forms.ChoiceField(required=False)
    confirm_veto_override = forms.BooleanField(
        required=False,
        label="I read what the vetoing agent saw, above, and override its veto to ACT",
    )
    field_order = ["verdict", "decision", "note"]

    def __init__(self, *args, machine_decision: str = "", decisions=(), **kwargs):
        super().__init__(*args, **kwargs)
        others = [d for d in decisions if d != machine_decision]
        self.fields["decision"].choices = [("", "choose a decision"), *[(d, d) for d in others]]
        self.fields["decision"].label = "Decision if you override"
        self.machine_decision = machine_decision

    def clean(self):
        data = super().clean()
        if data.get("verdict") == ReviewItem.Verdict.OVERRIDE and not data.get("decision"):
            self.add_error(
                "decision", f"Choose the decision that replaces {self.machine_decision}."
            )
        return data


class DecideForm(NoteForm):
    """A failed debate's verdict: the decision the service answers with, set by the analyst
    (there is no machine decision to uphold)."""

    decision = forms.ChoiceField(
        error_messages={
            "required": "Choose the decision the debate gets.",
            "invalid_choice": "Choose one of the protocol's decisions.",
        },
    )
    field_order = ["decision", "note"]

    def __init__(self, *args, decisions=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["decision"].choices = [("", "choose a decision"), *[(d, d) for d in decisions]]
