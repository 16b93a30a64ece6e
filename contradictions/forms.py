import json

from django import forms
from django.core.exceptions import ValidationError

from contradictions.inputs import parse_payload

EXAMPLE = """[
  {"agent": "LabourEconomist", "confidence": 0.9, "findings": [
    {"metric": "qatar_unemployment_rate", "value": 0.10, "unit": "%",
     "source": "GCC-STAT", "period": "Q1-2024",
     "citation": "[Per extraction: '0.10%' from GCC-STAT Q1-2024]"}]},
  {"agent": "NationalStrategy", "confidence": 0.85, "findings": [
    {"metric": "qatar_unemployment_rate", "value": 0.12, "unit": "%",
     "source": "World Bank", "period": "2024",
     "citation": "[Per extraction: '0.12%' from World Bank 2024]"}]}
]"""


class ReportsJSONField(forms.CharField):
    """Reports as JSON text (a list of reports, or an object with "reports"), checked like the
    API checks them; a problem is shown per report and finding."""

    widget = forms.Textarea(attrs={"rows": 16, "cols": 100, "spellcheck": "false"})

    def clean(self, value):
        text = super().clean(value)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValidationError(
                f"This is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})."
            ) from None
        return parse_payload(data)


class RunStartForm(forms.Form):
    reports = ReportsJSONField(
        max_length=2_000_000,
        initial=EXAMPLE,
        help_text='A list of reports: {"agent", "confidence" (0-1), "findings": [{"metric", '
        '"value", "unit", "source", "period", "citation", "confidence", "interpretation"}]}.',
    )
