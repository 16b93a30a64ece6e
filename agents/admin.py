from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError

from agents.models import Agent
from agents.services import agent_protocol_names, agent_protocols_clean


class AgentForm(forms.ModelForm):
    class Meta:
        model = Agent
        fields = (
            "name", "slug", "role", "position", "is_active", "protocols", "guiding_question",
            "system_prompt", "model_name", "temperature", "can_veto", "veto_risk_threshold",
        )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "protocols" in self.fields:
            self.fields["protocols"].help_text = (
                "Comma-separated protocols this agent takes part in by default. Known: "
                + ", ".join(agent_protocol_names()) + "."
            )

    def clean_protocols(self):
        try:
            return agent_protocols_clean(self.cleaned_data["protocols"])
        except ValidationError as exc:
            raise forms.ValidationError(exc.message_dict["protocols"]) from None


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin):
    form = AgentForm
    list_display = ("name", "slug", "role", "protocol_list", "model_name", "temperature",
                    "can_veto", "is_active")
    list_filter = ("is_active", "can_veto", "role")
    search_fields = ("name", "slug", "role", "system_prompt")
    prepopulated_fields = {"slug": ("name",)}
    readonly_fields = ("created_at", "updated_at")
    fieldsets = (
        (None, {"fields": ("name", "slug", "role", "position", "is_active", "protocols")}),
        ("Persona", {"fields": ("guiding_question", "system_prompt")}),
        ("Model", {"fields": ("model_name", "temperature")}),
        ("Veto", {"fields": ("can_veto", "veto_risk_threshold")}),
        ("History", {"fields": ("created_at", "updated_at")}),
    )

    @admin.display(description="Protocols")
    def protocol_list(self, obj):
        return ", ".join(obj.protocols)
