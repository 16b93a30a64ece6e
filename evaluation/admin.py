from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from debates.models import Debate
from evaluation.models import EvaluationItem, EvaluationRun
from runs.admin import ReadOnlyInline


class EvaluationItemInline(ReadOnlyInline):
    model = EvaluationItem
    fields = ("line", "category", "question", "expected", "outcome", "debate_link", "reason")
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("debate")

    @admin.display(description="Decided")
    def outcome(self, obj):
        if obj.debate is None:
            return "not asked yet"
        if obj.debate.status != Debate.Status.COMPLETED:
            return obj.debate.get_status_display()
        mark = "right" if obj.debate.decision == obj.expected else "wrong"
        return f"{obj.debate.decision} ({mark})"

    @admin.display(description="Debate")
    def debate_link(self, obj):
        if obj.debate_id is None:
            return "-"
        url = reverse("admin:debates_debate_change", args=[obj.debate_id])
        return format_html('<a href="{}">{}</a>', url, str(obj.debate_id)[:8])


@admin.register(EvaluationRun)
class EvaluationRunAdmin(admin.ModelAdmin):
    """Evaluation runs (`manage.py evaluate`), read-only: their settings, figures and items."""

    list_display = (
        "created_at",
        "set_name",
        "protocol",
        "model",
        "status",
        "accuracy",
        "wall_time",
    )
    list_filter = ("status", "protocol", "created_at")
    search_fields = ("set_name", "id")
    date_hierarchy = "created_at"
    # The report is read on its page (`/evaluation/<id>/`), not as the stored JSON.
    fields = [
        *(f.name for f in EvaluationRun._meta.fields if f.name not in ("wall_seconds", "report")),
        "wall_time",
        "report_page",
    ]
    readonly_fields = fields
    inlines = [EvaluationItemInline]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="Debate accuracy")
    def accuracy(self, obj):
        debate = (obj.report or {}).get("accuracy", {}).get("debate") or {}
        if not debate.get("n"):
            return "-"
        return f"{debate['rate'] * 100:.0f}% ({debate['agreed']}/{debate['n']})"

    @admin.display(description="Wall time", ordering="wall_seconds")
    def wall_time(self, obj):
        return f"{obj.wall_seconds:.1f} s"

    @admin.display(description="Report")
    def report_page(self, obj):
        url = reverse("evaluation:detail", args=[obj.pk])
        return format_html('<a href="{}">The report: accuracy, intervals, every question</a>', url)
