from django.contrib import admin

from agents.models import Agent


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "role", "model_name", "temperature", "can_veto", "is_active")
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
