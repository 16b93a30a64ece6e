from django import forms

from reviews.models import ReviewItem

PAGE_SIZES = (25, 50, 100, 200)


class QueueFilterForm(forms.Form):
    status = forms.ChoiceField(
        required=False,
        choices=[
            ("active", "Open or claimed"),
            ("open", "Open"),
            ("claimed", "Claimed"),
            ("resolved", "Resolved"),
            ("dismissed", "Dismissed"),
            ("expired", "Closed at their deadline"),
            ("all", "All"),
        ],
    )
    reason = forms.ChoiceField(
        required=False, choices=[("", "Any reason"), *ReviewItem.Reason.choices]
    )
    assignee = forms.ChoiceField(required=False)
    overdue = forms.ChoiceField(
        required=False,
        label="Deadline",
        choices=[("", "Any"), ("yes", "Overdue"), ("no", "Not overdue")],
    )
    per_page = forms.TypedChoiceField(
        required=False,
        coerce=int,
        empty_value=50,
        choices=[(n, f"{n} a page") for n in PAGE_SIZES],
    )

    def __init__(self, *args, reviewers=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["assignee"].choices = [
            ("", "Anyone"),
            ("me", "Mine"),
            ("none", "Unassigned"),
            *[(str(u.pk), u.get_username()) for u in reviewers],
        ]

    def filters(self) -> dict:
        data = self.cleaned_data
        return {
            "status": data.get("status") or "active",
            "reason": data.get("reason") or "",
            "assignee": data.get("assignee") or "",
            "overdue": data.get("overdue") or "",
        }


class NoteForm(forms.Form):
    note = forms.CharField(
        required=True,
        strip=True,
        max_length=5000,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        error_messages={"required": "A note is required: say why."},
    )


class ReleaseForm(forms.Form):
    note = forms.CharField(required=False, strip=True, max_length=5000)


class RerunForm(forms.Form):
    model = forms.CharField(
        required=False,
        strip=True,
        max_length=200,
        help_text="Leave empty to keep the model it ran with; or name an allowed model.",
    )
    note = forms.CharField(
        required=False,
        strip=True,
        max_length=5000,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
    )


class OverrideForm(NoteForm):
    """The admin's override of several items at once: one decision, one note."""

    decision = forms.ChoiceField(
        label="New decision",
        error_messages={"required": "Choose the decision that replaces the machine's."},
    )
    field_order = ["decision", "note"]

    def __init__(self, *args, decisions=(), may_override_veto: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["decision"].choices = [("", "choose a decision"), *[(d, d) for d in decisions]]
        self.fields["decision"].help_text = (
            "Replaces the machine's decision on each item; the machine's stays on record. "
            "A safety veto is not overridden to ACT here: such items are left as they are "
            "(override one on its review page, holding it, with a confirmation"
            + ("" if may_override_veto else "; it also needs the Operator role")
            + ")."
        )


class AssignForm(forms.Form):
    """Route an open item to a reviewer (or to nobody) without claiming it."""

    assignee = forms.ChoiceField(required=False, label="Assign to")

    def __init__(self, *args, reviewers=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["assignee"].choices = [
            ("", "nobody (unassigned)"),
            *[(str(u.pk), u.get_username()) for u in reviewers],
        ]


class DutyForm(forms.Form):
    on_duty = forms.BooleanField(required=False)
