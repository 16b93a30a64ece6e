"""Spending limits edited by staff (every save and delete recorded in the audit trail), and
what was spent, per day, user, API token and model."""

from django.contrib import admin
from django.db.models import Sum

from budgets import services
from budgets.models import Charge, Counter, SpendingLimit, Usage


@admin.register(SpendingLimit)
class SpendingLimitAdmin(admin.ModelAdmin):
    list_display = (
        "__str__",
        "scope",
        "daily_cost_usd",
        "monthly_cost_usd",
        "daily_tokens",
        "monthly_tokens",
        "updated_at",
    )
    list_filter = ("scope",)
    search_fields = ("user__username", "token__name", "note")
    raw_id_fields = ("user", "token")
    list_select_related = ("user", "token")
    readonly_fields = ("defaults", "updated_at")
    fieldsets = (
        (None, {"fields": ("scope", "user", "token")}),
        (
            "Limits (blank: the default)",
            {
                "fields": (
                    "daily_cost_usd",
                    "monthly_cost_usd",
                    "daily_tokens",
                    "monthly_tokens",
                    "defaults",
                )
            },
        ),
        (None, {"fields": ("note", "updated_at")}),
    )

    @admin.display(description="Defaults from settings")
    def defaults(self, obj):
        scope = obj.scope if obj and obj.pk else SpendingLimit.Scope.USER
        values = services.effective_limits(scope, None)
        return "; ".join(
            f"{name}: {'no limit' if value is None else value}" for name, value in values.items()
        )

    def save_model(self, request, obj, form, change):
        before = None
        if change:
            before = services.audited(SpendingLimit.objects.get(pk=obj.pk))
        services.limit_save(limit=obj, actor=request.user, before=before)

    def delete_model(self, request, obj):
        services.limit_delete(limit=obj, actor=request.user)

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            services.limit_delete(limit=obj, actor=request.user)


class _ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Usage)
class UsageAdmin(_ReadOnly):
    list_display = ("day", "user", "token", "model", "calls", "tokens_in", "tokens_out", "cost_usd")
    list_filter = ("day", "model")
    search_fields = ("user__username", "token__name", "model")
    date_hierarchy = "day"
    list_select_related = ("user", "token")
    change_list_template = "admin/budgets/usage/change_list.html"

    def changelist_view(self, request, extra_context=None):
        response = super().changelist_view(request, extra_context=extra_context)
        changelist = getattr(response, "context_data", {}).get("cl")
        if changelist is not None:
            response.context_data["usage_totals"] = changelist.queryset.aggregate(
                calls=Sum("calls"),
                tokens_in=Sum("tokens_in"),
                tokens_out=Sum("tokens_out"),
                cost_usd=Sum("cost_usd"),
            )
        return response


@admin.register(Counter)
class CounterAdmin(_ReadOnly):
    list_display = (
        "key",
        "period",
        "used_cost_usd",
        "used_tokens",
        "used_calls",
        "reserved_cost_usd",
        "reserved_tokens",
        "reserved_calls",
        "updated_at",
    )
    list_filter = ("period",)
    search_fields = ("key",)


@admin.register(Charge)
class ChargeAdmin(admin.ModelAdmin):
    """Who pays for each debate and run, and its own limits: raise them here (audited) so that
    a debate stopped at one can be re-run to its end."""

    list_display = (
        "subject",
        "user",
        "token",
        "max_calls",
        "max_tokens_per_call",
        "max_tokens",
        "max_cost_usd",
        "created_at",
    )
    search_fields = ("subject", "user__username", "token__name")
    list_select_related = ("user", "token")
    readonly_fields = ("subject", "user", "token", "created_at")
    fields = (
        "subject",
        "user",
        "token",
        "max_calls",
        "max_tokens_per_call",
        "max_tokens",
        "max_cost_usd",
        "created_at",
    )

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        services.charge_save(charge=obj, actor=request.user)
