from django import forms

from reviews.models import ReviewItem

PAGE_SIZES = (25, 50, 100, 200)


class QueueFilterForm(forms.Form):
    status = forms.ChoiceField(
        required=False,
        choices=[
            ("active", "Open or claimed"), ("open", "Open"), ("claimed", "Claimed"),
            ("resolved", "Resolved"), ("dismissed", "Dismissed"), ("all", "All"),
        ],
    )
    reason = forms.ChoiceField(
        required=False, choices=[("", "Any reason"), *ReviewItem.Reason.choices]
    )
    assignee = forms.ChoiceField(required=False)
    per_page = forms.TypedChoiceField(
        required=False, coerce=int, empty_value=50,
        choices=[(n, f"{n} a page") for n in PAGE_SIZES],
    )

    def __init__(self, *args, reviewers=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["assignee"].choices = [
            ("", "Anyone"), ("me", "Mine"), ("none", "Unassigned"),
            *[(str(u.pk), u.get_username()) for u in reviewers],
        ]

    def filters(self) -> dict:
        data = self.cleaned_data
        return {
            "status": data.get("status") or "active",
            "reason": data.get("reason") or "",
            "assignee": data.get("assignee") or "",
        }


class NoteForm(forms.Form):
    note = forms.CharField(
        required=True, strip=True, max_length=5000,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        error_messages={"required": "A note is required: say why."},
    )


class ReleaseForm(forms.Form):
    note = forms.CharField(required=False, strip=True, max_length=5000)


class ResolveForm(NoteForm):
    verdict = forms.ChoiceField(
        widget=forms.RadioSelect,
        choices=[
            (ReviewItem.Verdict.UPHOLD, "Uphold the machine's decision"),
            (ReviewItem.Verdict.OVERRIDE, "Override it with"),
        ],
        error_messages={"required": "Choose a verdict: uphold or override."},
    )
    decision = forms.ChoiceField(required=False)
    field_order = ["verdict", "decision", "note"]

    def __init__(self, *args, machine_decision: str = "", decisions=(), **kwargs):
        super().__init__(*args, **kwargs)
        others = [d for d in decisions if d != machine_decision]
        self.fields["decision"].choices = [("", "choose a decision"), *[(d, d) for d in others]]
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
        error_messages={"required": "Choose the decision the debate gets.",
                        "invalid_choice": "Choose one of the protocol's decisions."},
    )
    field_order = ["decision", "note"]

    def __init__(self, *args, decisions=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["decision"].choices = [("", "choose a decision"), *[(d, d) for d in decisions]]


class RerunForm(forms.Form):
    note = forms.CharField(required=False, strip=True, max_length=5000,
                           widget=forms.Textarea(attrs={"rows": 2, "cols": 60}))


class KeepForm(NoteForm):
    """A contradiction's verdict: the value to keep (one of the conflicting claims, or all of
    them with their context)."""

    choice = forms.ChoiceField(
        widget=forms.RadioSelect,
        error_messages={"required": "Choose the value to keep, or keep them all.",
                        "invalid_choice": "Choose one of the values shown, or keep them all."},
    )
    field_order = ["choice", "note"]

    def __init__(self, *args, choices=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["choice"].choices = list(choices)
