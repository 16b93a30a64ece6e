from django.contrib import admin

from audit.models import AuditEntry


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    """Read-only: entries are only ever appended, by the actions they record."""

    list_display = (
        "at",
        "actor_name",
        "action",
        "subject_type",
        "subject_id",
        "subject_repr",
        "change_summary",
    )
    list_filter = ("action", "subject_type", "at", "actor_name")
    search_fields = ("actor_name", "subject_repr", "subject_id", "note")
    date_hierarchy = "at"
    readonly_fields = [field.name for field in AuditEntry._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="Changes")
    def change_summary(self, obj):
        parts = [
            f"{name}: {values.get('from')!r} → {values.get('to')!r}"
            for name, values in obj.changes.items()
            if isinstance(values, dict)
        ]
        text = "; ".join(parts)
        return text if len(text) <= 120 else text[:119] + "…"
