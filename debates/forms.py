from django import forms

from debates.protocols import PROTOCOLS


class DebateStartForm(forms.Form):
    """What a person types to start a debate. The service validates and screens the question
    (`services.debate_create`); its messages are shown on this form."""

    query = forms.CharField(
        label="Question",
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 4, "required": True, "autofocus": True,
                                     "aria-describedby": "query-help"}),
        help_text="Up to 2000 characters. The agents see it as data to judge, not as orders.",
    )
    protocol = forms.ChoiceField(
        label="Protocol",
        choices=[(name, protocol.label) for name, protocol in PROTOCOLS.items()],
        initial="s4",
    )
