from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied, ValidationError
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.html import format_html, format_html_join

from agents import routing, services
from agents.models import Agent, AgentVersion
from agents.services import agent_protocol_names, agent_protocols_clean


class AgentForm(forms.ModelForm):
    class Meta:
        model = Agent
        fields = (
            "name",
            "slug",
            "role",
            "position",
            "is_active",
            "protocols",
            "guiding_question",
            "system_prompt",
            "model_name",
            "temperature",
            "can_veto",
            "veto_risk_threshold",
        )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "protocols" in self.fields:
            self.fields["protocols"].help_text = (
                "Comma-separated protocols this agent takes part in by default. Known: "
                + ", ".join(agent_protocol_names())
                + "."
            )

    def clean_protocols(self):
        try:
            return agent_protocols_clean(self.cleaned_data["protocols"])
        except ValidationError as exc:
            raise forms.ValidationError(exc.message_dict["protocols"]) from None


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin):
    form = AgentForm
    list_display = (
        "name",
        "slug",
        "role",
        "protocol_list",
        "model_name",
        "temperature",
        "can_veto",
        "is_active",
    )
    list_filter = ("is_active", "can_veto", "role")
    search_fields = ("name", "slug", "role", "system_prompt")
    prepopulated_fields = {"slug": ("name",)}
    readonly_fields = ("created_at", "updated_at", "version_history")
    fieldsets = (
        (None, {"fields": ("name", "slug", "role", "position", "is_active", "protocols")}),
        ("Persona", {"fields": ("guiding_question", "system_prompt")}),
        ("Model", {"fields": ("model_name", "temperature")}),
        ("Veto", {"fields": ("can_veto", "veto_risk_threshold")}),
        ("History", {"fields": ("created_at", "updated_at", "version_history")}),
    )

    change_list_template = "admin/agents/agent/change_list.html"

    def get_readonly_fields(self, request, obj=None):
        """An agent's veto power (and, for an agent that can veto, whether it takes part, its
        role, protocols, prompt and model) changes only with the permission
        `agents.change_agent_veto` (role Operator)."""
        fields = tuple(super().get_readonly_fields(request, obj))
        if request.user.has_perm(services.VETO_PERMISSION):
            return fields
        fields += ("can_veto", "veto_risk_threshold")
        if obj is not None and obj.can_veto:
            fields += services.VETO_AGENT_FIELDS
        return fields

    def has_delete_permission(self, request, obj=None):
        if obj is not None and obj.can_veto and not request.user.has_perm(services.VETO_PERMISSION):
            return False
        return super().has_delete_permission(request, obj)

    def save_model(self, request, obj, form, change):
        services.agent_save(agent=obj, actor=request.user)

    def delete_model(self, request, obj):
        services.agent_delete(agent=obj, actor=request.user)

    def delete_queryset(self, request, queryset):
        for agent in queryset:
            services.agent_delete(agent=agent, actor=request.user)

    @admin.display(description="Versions")
    def version_history(self, obj):
        if obj.pk is None:
            return "-"
        versions = obj.versions.order_by("-number")[:50]
        if not versions:
            return "none recorded yet"
        rows = format_html_join(
            "",
            "<tr><td>v{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    version.number,
                    version.created_at.strftime("%Y-%m-%d %H:%M %Z"),
                    version.changed_by_name or "system",
                    "; ".join(
                        f"{name}: {_short(change.get('from'))} → {_short(change.get('to'))}"
                        for name, change in version.changes.items()
                    )
                    or "as first recorded",
                )
                for version in versions
            ),
        )
        return format_html(
            "<table><tr><th>Version</th><th>When</th><th>By</th><th>Changes</th></tr>{}</table>",
            rows,
        )

    @admin.display(description="Protocols")
    def protocol_list(self, obj):
        return ", ".join(obj.protocols)

    def get_urls(self):
        routes = path(
            "routing/", self.admin_site.admin_view(self.routing_view), name="agents_agent_routing"
        )
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
            "groups": [
                (name, deployments, config.fallbacks.get(name, ()))
                for name, deployments in sorted(config.groups.items())
            ],
            "routes": sorted(
                config.routes.items(), key=lambda item: (item[0].count(routing.ANY), item[0])
            ),
            "allowed": config.allowed_models(),
        }
        return TemplateResponse(request, "admin/agents/routing.html", context)


def _short(value, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@admin.register(AgentVersion)
class AgentVersionAdmin(admin.ModelAdmin):
    """Read-only: versions are written by every save of an agent, and outlive it."""

    list_display = ("agent_slug", "number", "created_at", "changed_by_name", "changed_fields")
    list_filter = ("agent_slug", "changed_by_name", "created_at")
    search_fields = ("agent_slug", "changed_by_name")
    readonly_fields = (
        "agent",
        "agent_slug",
        "number",
        "snapshot",
        "changes",
        "changed_by_id",
        "changed_by_name",
        "created_at",
    )

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="Changed")
    def changed_fields(self, obj):
        return ", ".join(obj.changes) or "as first recorded"
