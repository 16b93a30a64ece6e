from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.template.response import TemplateResponse
from django.urls import path

from agents import routing
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

    change_list_template = "admin/agents/agent/change_list.html"

    @admin.display(description="Protocols")
    def protocol_list(self, obj):
        return ", ".join(obj.protocols)

    def get_urls(self):
        routes = path("routing/", self.admin_site.admin_view(self.routing_view),
                      name="agents_agent_routing")
        return [routes, *super().get_urls()]

    def routing_view(self, request):
        """Read-only: the model groups, routes, fallbacks and allow-list in force (settings)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        config = routing.config()
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Model routing",
            "groups": [(name, deployments, config.fallbacks.get(name, ()))
                       for name, deployments in sorted(config.groups.items())],
            "routes": sorted(config.routes.items(),
                             key=lambda item: (item[0].count(routing.ANY), item[0])),
            "allowed": config.allowed_models(),
        }
        return TemplateResponse(request, "admin/agents/routing.html", context)
