from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from contradictions import acting, selectors, services
from contradictions.forms import RunStartForm
from contradictions.models import (
    AgentReport,
    ArbitrationCall,
    ContradictionRun,
    Finding,
    SourceAuthority,
)
from reviews.events import ReviewConflict
from runs.admin import ReadOnlyInline


@admin.register(SourceAuthority)
class SourceAuthorityAdmin(admin.ModelAdmin):
    """The ranked list of sources: edit ranks in the list. A run takes a snapshot when it
    starts, so editing the list never changes a run already made."""

    list_display = ("name", "rank", "is_active", "aliases", "note", "updated_at")
    list_display_links = ("name",)
    list_editable = ("rank", "is_active")
    search_fields = ("name", "aliases", "note")
    ordering = ("rank", "name")


class ReportInline(ReadOnlyInline):
    model = AgentReport
    fields = ("position", "agent_name", "confidence")


class FindingInline(ReadOnlyInline):
    model = Finding
    fields = (
        "report",
        "metric",
        "value",
        "unit",
        "source",
        "period",
        "confidence",
        "interpretation",
        "citation",
    )

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("report")


class CallInline(ReadOnlyInline):
    model = ArbitrationCall
    fields = (
        "key",
        "status",
        "model",
        "deployment",
        "raw_response",
        "reasoning_content",
        "raw_escaped",
        "parse_failed",
        "tokens_in",
        "tokens_out",
        "cost_usd",
        "latency_ms",
        "attempts",
        "error",
    )
    verbose_name_plural = "Arbitration calls (raw output)"


@admin.register(ContradictionRun)
class ContradictionRunAdmin(admin.ModelAdmin):
    list_display = (
        "short_id",
        "status",
        "origin",
        "contradictions_found",
        "resolved_count",
        "flagged_count",
        "review_status",
        "created_by",
        "created_at",
        "cost_usd",
    )
    list_filter = ("status", "origin", "review_status", "created_at")
    search_fields = ("id", "reports__agent_name", "findings__metric")
    date_hierarchy = "created_at"
    list_select_related = ("created_by",)
    actions = ["retry_failed"]
    inlines = [ReportInline, FindingInline, CallInline]
    fieldsets = (
        (None, {"fields": ("page_link", "status", "origin", "created_by", "debate", "error")}),
        (
            "Outcome",
            {
                "fields": (
                    "contradictions_found",
                    "resolved_count",
                    "flagged_count",
                    "reviewed_count",
                    "review_status",
                    "consensus_narrative",
                    "side_by_side",
                )
            },
        ),
        (
            "Settings",
            {
                "fields": (
                    "value_threshold",
                    "confidence_gap",
                    "min_confidence",
                    "model",
                    "authority",
                )
            },
        ),
        (
            "Usage",
            {
                "fields": (
                    "tokens_in",
                    "tokens_out",
                    "cost_usd",
                    "arbitration_ms",
                    "attempts",
                    "created_at",
                    "started_at",
                    "completed_at",
                )
            },
        ),
    )
    readonly_fields = [
        "page_link",
        "status",
        "origin",
        "created_by",
        "debate",
        "error",
        "contradictions_found",
        "resolved_count",
        "flagged_count",
        "reviewed_count",
        "review_status",
        "consensus_narrative",
        "side_by_side",
        "value_threshold",
        "confidence_gap",
        "min_confidence",
        "model",
        "authority",
        "tokens_in",
        "tokens_out",
        "cost_usd",
        "arbitration_ms",
        "attempts",
        "created_at",
        "started_at",
        "completed_at",
    ]

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="Run", ordering="created_at")
    def short_id(self, obj):
        return str(obj.id)[:8]

    @admin.display(description="Page")
    def page_link(self, obj):
        url = reverse("contradictions:detail", args=[obj.id])
        return format_html('<a href="{}">{}</a>', url, url)

    @admin.display(description="Contradictions and resolutions")
    def side_by_side(self, obj):
        page = selectors.arrange(selectors.run_detail_queryset().get(id=obj.id))
        # The template escapes every stored text; the result is HTML we produced.
        return mark_safe(
            "<style>"
            + render_to_string("contradictions/_styles.html")
            + "</style>"
            + "".join(
                render_to_string("contradictions/_case.html", {"case": case}) for case in page.cases
            )
        )

    def add_view(self, request, form_url="", extra_context=None):
        """Start a run from reports pasted as JSON, checked like the API checks them."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = RunStartForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            payload = form.cleaned_data["reports"]
            try:
                run = services.contradiction_run_create(
                    reports=payload.get("reports") or [],
                    created_by=request.user,
                    origin=ContradictionRun.Origin.ADMIN,
                    value_threshold=payload.get("value_threshold"),
                    confidence_gap=payload.get("confidence_gap"),
                )
            except ValidationError as exc:
                form.add_error("reports", exc.messages)
            else:
                self.message_user(request, f"Run {str(run.id)[:8]} queued.", messages.SUCCESS)
                return redirect(
                    reverse("admin:contradictions_contradictionrun_change", args=[run.id])
                )
        return TemplateResponse(
            request,
            "admin/contradictions/contradictionrun/start.html",
            {
                **self.admin_site.each_context(request),
                "title": "Start a contradiction run",
                "opts": self.model._meta,
                "form": form,
            },
            status=400 if form.errors else 200,
        )

    @admin.action(description="Retry the selected failed runs", permissions=["add"])
    def retry_failed(self, request, queryset):
        """Each failed run is queued again and its open `run_failed` review item closed as
        re-run; a run whose item another analyst holds is left to them."""
        retried = 0
        for run_id in queryset.values_list("id", flat=True):
            try:
                retried += acting.contradiction_run_retry(
                    run_id=run_id, user=request.user, note="Retried from the admin."
                )
            except ReviewConflict as exc:
                self.message_user(request, exc.message, messages.ERROR)
        self.message_user(
            request,
            f"Queued {retried} failed run(s) again; arbitrations already made are not repeated.",
            messages.SUCCESS if retried else messages.WARNING,
        )
