from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.core.exceptions import PermissionDenied, ValidationError

from accounts import services
from accounts.models import ApiToken, WebhookSecret

User = get_user_model()


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = (("revoked_at", admin.EmptyFieldListFilter), "created_at", "last_used_at")
    search_fields = ("name", "prefix", "user__username", "user__email")
    list_select_related = ("user",)
    readonly_fields = ("user", "name", "prefix", "created_at", "last_used_at", "revoked_at")
    actions = ["revoke"]

    def has_add_permission(self, request):
        return False  # issued from the user list (action) or `manage.py issue_token`

    def has_change_permission(self, request, obj=None):
        return False

    def has_revoke_permission(self, request):
        return request.user.has_perm("accounts.revoke_apitoken")

    @admin.action(description="Revoke selected tokens", permissions=["revoke"])
    def revoke(self, request, queryset):
        count = services.token_revoke(
            token_ids=list(queryset.values_list("id", flat=True)), revoked_by=request.user
        )
        self.message_user(request, f"{count} token(s) revoked.", messages.SUCCESS)


@admin.register(WebhookSecret)
class WebhookSecretAdmin(admin.ModelAdmin):
    list_display = ("user", "created_at")
    search_fields = ("user__username",)
    list_select_related = ("user",)
    fields = ("user", "created_at")
    readonly_fields = ("user", "created_at")

    def has_add_permission(self, request):
        return False


admin.site.unregister(User)


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    actions = ["issue_api_token"]

    def has_issue_token_permission(self, request):
        return request.user.has_perm("accounts.add_apitoken") or request.user.has_perm(
            "accounts.issue_token_for_others"
        )

    @admin.action(description="Issue an API token to selected users", permissions=["issue_token"])
    def issue_api_token(self, request, queryset):
        for user in queryset:
            try:
                _, raw = services.token_issue(
                    user=user,
                    name=f"Issued in the admin by {request.user}",
                    issued_by=request.user,
                )
            except PermissionDenied as exc:
                self.message_user(request, str(exc), messages.ERROR)
                continue
            except ValidationError as exc:
                self.message_user(request, " ".join(exc.messages), messages.ERROR)
                continue
            self.message_user(
                request,
                f"Token for {user.get_username()}: {raw} (copy it now; it is not shown again).",
                messages.SUCCESS,
            )
