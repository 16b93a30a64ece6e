from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from debates.models import Challenge, Debate, LLMCall, Participant, Statement, Vote


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class ParticipantInline(ReadOnlyInline):
    model = Participant
    fields = ("position", "name", "role", "model_name", "temperature", "can_veto")


class StatementInline(ReadOnlyInline):
    model = Statement
    fields = (
        "round", "participant", "kind", "previous_decision", "decision", "confidence", "risk",
        "reasoning", "parse_failed", "notes",
    )

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("round", "participant")


class ChallengeInline(ReadOnlyInline):
    model = Challenge
    fk_name = "debate"
    fields = ("challenger", "challenged", "stance", "argument", "suggested_decision",
              "parse_failed")

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("challenger", "challenged")


class VoteInline(ReadOnlyInline):
    model = Vote
    fields = ("participant", "decision", "confidence", "risk", "reasoning")

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("participant")


class LLMCallInline(ReadOnlyInline):
    model = LLMCall
    fields = ("key", "status", "model", "raw_response", "parse_failed", "tokens_in",
              "tokens_out", "cost_usd", "latency_ms", "attempts", "error")
    verbose_name_plural = "LLM calls (raw output)"


@admin.register(Debate)
class DebateAdmin(admin.ModelAdmin):
    list_display = ("short_query", "protocol", "status", "decision", "consensus_type",
                    "injection", "created_by", "created_at", "cost_usd")
    list_filter = ("status", "decision", "protocol", "consensus_type", "created_at",
                   ("schedule", admin.RelatedOnlyFieldListFilter))
    search_fields = ("query", "id")
    date_hierarchy = "created_at"
    list_select_related = ("created_by",)
    readonly_fields = [f.name for f in Debate._meta.fields]
    inlines = [ParticipantInline, StatementInline, ChallengeInline, VoteInline, LLMCallInline]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="Question")
    def short_query(self, obj):
        return obj.query[:80]

    @admin.display(description="Injection", boolean=True)
    def injection(self, obj):
        return bool(obj.injection_findings)


@admin.register(LLMCall)
class LLMCallAdmin(admin.ModelAdmin):
    list_display = ("key", "debate_link", "status", "model", "parse_failed", "tokens_in",
                    "tokens_out", "cost_usd", "latency_ms", "created_at")
    list_filter = ("status", "parse_failed", "step", "model")
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

