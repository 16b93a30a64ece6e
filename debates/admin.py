import uuid

from django.contrib import admin
from django.core.cache import cache
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from api.pagination import EstimatedCountPaginator
from debates.exports import export_debates_csv
from debates.models import (
    Challenge,
    Debate,
    LLMCall,
    Participant,
    Statement,
    Vote,
    WebhookDelivery,
)
from protocols import PROTOCOLS
from runs.admin import ReadOnlyInline


class ParticipantInline(ReadOnlyInline):
    model = Participant
    fields = ("position", "name", "role", "model_name", "temperature", "can_veto")


class StatementInline(ReadOnlyInline):
    model = Statement
    fields = (
        "round",
        "participant",
        "kind",
        "previous_decision",
        "decision",
        "confidence",
        "risk",
        "reasoning",
        "details",
        "parse_failed",
        "notes",
    )

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("round", "participant")


class ChallengeInline(ReadOnlyInline):
    model = Challenge
    fk_name = "debate"
    fields = (
        "challenger",
        "challenged",
        "agrees_with_conclusion",
        "argument",
        "suggested_decision",
        "parse_failed",
    )

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("challenger", "challenged")


class VoteInline(ReadOnlyInline):
    model = Vote
    fields = ("participant", "decision", "confidence", "risk", "reasoning")

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("participant")


class LLMCallInline(ReadOnlyInline):
    model = LLMCall
    fields = (
        "key",
        "status",
        "model",
        "deployment",
        "raw_response",
        "reasoning_content",
        "raw_escaped",
        "parse_failed",
        "injection_findings",
        "tokens_in",
        "tokens_out",
        "cost_usd",
        "latency_ms",
        "attempts",
        "error",
    )
    verbose_name_plural = "LLM calls (raw output)"


class ProtocolFilter(admin.SimpleListFilter):
    """The protocols of the registry, by label (debates store the concrete protocol)."""

    title = "protocol"
    parameter_name = "protocol"

    def lookups(self, request, model_admin):
        return [
            (name, cls.label)
            for name, cls in PROTOCOLS.items()
            if not getattr(cls, "is_selector", False)
        ]

    def queryset(self, request, queryset):
        return queryset.filter(protocol=self.value()) if self.value() else queryset


class StoredValuesFilter(admin.SimpleListFilter):
    """The values a column holds, as Django's own filter lists them, but read from the cache
    (for `CACHE_SECONDS`) instead of a DISTINCT over every debate on every changelist view.
    The URL parameter is the one Django's filter uses (`decision__exact=...`)."""

    field = ""
    CACHE_SECONDS = 300

    def lookups(self, request, model_admin):
        values = cache.get_or_set(
            f"admin:debate:values:{self.field}",
            lambda: list(
                Debate.objects.exclude(**{self.field: ""})
                .order_by(self.field)
                .values_list(self.field, flat=True)
                .distinct()
            ),
            self.CACHE_SECONDS,
        )
        # A value asked for that the cached list does not hold yet (stored since it was read)
        # is listed too: a filter without choices is dropped by the changelist, which would
        # then show, and export, every row instead of the ones asked for.
        asked = request.GET.get(self.parameter_name)
        if asked and asked not in values:
            values = sorted([*values, asked])
        return [(value, value) for value in values]

    def queryset(self, request, queryset):
        return queryset.filter(**{self.field: self.value()}) if self.value() else queryset


def stored_values_filter(field: str) -> type[StoredValuesFilter]:
    return type(
        f"{field.title()}Filter",
        (StoredValuesFilter,),
        {"field": field, "title": field.replace("_", " "), "parameter_name": f"{field}__exact"},
    )


@admin.register(Debate)
class DebateAdmin(admin.ModelAdmin):
    # The rows through `admin_result_list` (accounts/templatetags/admin_rows.py).
    change_list_template = "admin/change_list_fast_rows.html"

    list_display = (
        "short_query",
        "protocol",
        "status",
        "decision",
        "effective_decision",
        "review_status",
        "consensus_type",
        "majority_decision",
        "outcome_change",
        "injection",
        "created_by",
        "created_at",
        "cost_usd",
    )
    list_filter = (
        "status",
        stored_values_filter("decision"),
        "review_status",
        ProtocolFilter,
        stored_values_filter("consensus_type"),
        stored_values_filter("outcome_change"),
        "created_at",
        ("schedule", admin.RelatedOnlyFieldListFilter),
    )
    search_fields = ("query",)  # and a whole id (`get_search_results`)
    list_per_page = 50
    actions = [export_debates_csv]
    list_select_related = ("created_by",)
    # 100,000 debates: the unfiltered total is PostgreSQL's estimate, and no second count. No
    # date hierarchy (a DISTINCT over every row per view): the `created_at` filter does that.
    paginator = EstimatedCountPaginator
    show_full_result_count = False

    def get_search_results(self, request, queryset, search_term):
        """A debate's id finds that debate (by primary key); other text searches the question
        (the trigram index `debate_query_trgm`)."""
        try:
            debate_id = uuid.UUID(search_term.strip())
        except ValueError:
            return super().get_search_results(request, queryset, search_term)
        return queryset.filter(id=debate_id), False

    # Every field, in the order the page has always shown them (not the model's, which lists the
    # durable-run fields it inherits first).
    readonly_fields = [
        "protocol_summary",
        "id",
        "query",
        "protocol",
        "options",
        "status",
        "created_by",
        "decision",
        "decision_override",
        "review_status",
        "reasoning",
        "metadata",
        "consensus_type",
        "injection_findings",
        "is_complex_query",
        "callback_url",
        "tokens_in",
        "tokens_out",
        "cost_usd",
        "attempts",
        "recoveries",
        "schedule",
        "error",
        "created_at",
        "started_at",
        "completed_at",
        "updated_at",
        "heartbeat_at",
        "effective_decision",
        "rules_version",
        "majority_decision",
        "outcome_change",
        "baselines",
        "quality",
    ]
    inlines = [ParticipantInline, StatementInline, ChallengeInline, VoteInline, LLMCallInline]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="Question")
    def short_query(self, obj):
        return obj.query[:80]

    @admin.display(description="Effective decision")
    def effective_decision(self, obj):
        if obj.is_overridden:
            return f"{obj.effective_decision} (reviewer override; machine: {obj.decision})"
        return obj.decision

    @admin.display(description="Injection", boolean=True)
    def injection(self, obj):
        return bool(obj.injection_findings)

    @admin.display(description="Protocol and options")
    def protocol_summary(self, obj):
        """The protocol's label and each option's value, with the registry's default."""
        cls = PROTOCOLS.get(obj.protocol)
        if cls is None:
            return obj.protocol
        rows = [
            f"{name} = {obj.options.get(name, spec['default'])!r} (default {spec['default']!r})"
            for name, spec in cls.options_schema.items()
        ]
        choice = obj.metadata.get("protocol_choice")
        if choice:
            rows.append(f"chosen by {choice['requested']}: {choice['reason']}")
        return format_html(
            "{}<br>{}", cls.label, format_html_join("", "{}<br>", ((r,) for r in rows))
        )


@admin.register(LLMCall)
class LLMCallAdmin(admin.ModelAdmin):
    list_display = (
        "key",
        "debate_link",
        "status",
        "model",
        "deployment",
        "parse_failed",
        "tokens_in",
        "tokens_out",
        "cost_usd",
        "latency_ms",
        "created_at",
    )
    list_filter = ("status", "parse_failed", "step", "model", "deployment")
    search_fields = ("key", "debate__id", "raw_response")
    list_select_related = ("debate",)
    readonly_fields = [f.name for f in LLMCall._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="Debate")
    def debate_link(self, obj):
        url = reverse("admin:debates_debate_change", args=[obj.debate_id])
        return format_html('<a href="{}">{}</a>', url, obj.debate.query[:50])


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    """Every attempt to deliver a webhook event; retries of one event share its event id."""

    list_display = (
        "event",
        "debate_link",
        "attempt",
        "status",
        "status_code",
        "url",
        "created_at",
        "duration_ms",
    )
    list_filter = ("status", "event", "status_code", "created_at")
    search_fields = ("event_id", "debate__id", "url", "error")
    date_hierarchy = "created_at"
    list_select_related = ("debate",)
    readonly_fields = [f.name for f in WebhookDelivery._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="Debate")
    def debate_link(self, obj):
        url = reverse("admin:debates_debate_change", args=[obj.debate_id])
        return format_html('<a href="{}">{}</a>', url, obj.debate.query[:50])
