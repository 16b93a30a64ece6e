from django import forms
from django.contrib import admin

from agents.models import Agent


class AgentForm(forms.ModelForm):
    class Meta:
        model = Agent
        fields = (
            "name", "slug", "role", "position", "is_active", "protocols", "guiding_question",
            "system_prompt", "model_name", "temperature", "can_veto", "veto_risk_threshold",
        )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        from debates.protocols import PROTOCOLS

        self.known = [name for name, cls in PROTOCOLS.items()
                      if not getattr(cls, "is_selector", False)]
        if "protocols" in self.fields:
            self.fields["protocols"].help_text = (
                "Comma-separated protocols this agent takes part in by default. Known: "
                + ", ".join(self.known) + "."
            )

    def clean_protocols(self):
        protocols = self.cleaned_data["protocols"]
        unknown = [p for p in protocols if p not in self.known]
        if unknown:
            raise forms.ValidationError(
                f"Unknown protocol(s): {', '.join(unknown)}. Known: {', '.join(self.known)}."
            )
        return protocols


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
