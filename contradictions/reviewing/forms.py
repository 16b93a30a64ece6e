"""The verdict an analyst gives a contradiction's review item on its page."""

from django import forms

from reviews.forms import NoteForm


class KeepForm(NoteForm):
    """A contradiction's verdict: the value to keep (one of the conflicting claims, or all of
    them with their context)."""

    choice = forms.ChoiceField(
        widget=forms.RadioSelect,
        error_messages={
            "required": "Choose the value to keep, or keep them all.",
            "invalid_choice": "Choose one of the values shown, or keep them all.",
        },
    )
    field_order = ["choice", "note"]

    def __init__(self, *args, choices=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["choice"].choices = list(choices)
