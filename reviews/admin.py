from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Q
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.text import smart_split, unescape_string_literal
from django.utils.timesince import timesince

from api.pagination import EstimatedCountPaginator
from reviews import services, subjects
from reviews.exports import export_review_items_csv
from reviews.forms import NoteForm, OverrideForm
from reviews.models import ReviewEvent, ReviewItem

VETO_ELSEWHERE = (
    "a safety veto is overridden to ACT only on the item's review page (or over the API), by "
    "the reviewer holding the item, with a note and a confirmation of what the vetoing agent "
    "saw; it was left as it is."
)


def _subject_related() -> list[str]:
    return [name for kind in subjects.all_subjects() for name in kind.queue_related]


class ReasonFilter(admin.SimpleListFilter):
    """Items raised for a reason, whether it leads the item or is one of its other reasons."""

    title = "reason"
    parameter_name = "reason__exact"

    def lookups(self, request, model_admin):
        return ReviewItem.Reason.choices

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(Q(reason=self.value()) | Q(reasons__contains=[self.value()]))
        return queryset


class ReviewEventInline(admin.TabularInline):
    """The item's history. While the item waits for its second review, what the first review
    said is withheld here (reviews are independent; the review page shows it to its author)."""

    model = ReviewEvent
    extra = 0
    can_delete = False
    fields = (
        "created_at",
        "actor",
        "action",
        "from_status",
        "to_status",
        "shown_note",
        "shown_data",
    )
    readonly_fields = fields

    @staticmethod
    def _withheld(obj) -> bool:
        item = obj.item
        return (
            obj.action == ReviewEvent.Action.REVIEWED
            and item.is_active
            and item.stage == ReviewItem.Stage.SECOND
        )

    @admin.display(description="note")
    def shown_note(self, obj):
        return "(withheld until the second review)" if self._withheld(obj) else obj.note

    @admin.display(description="data")
    def shown_data(self, obj):
        return "(withheld until the second review)" if self._withheld(obj) else obj.data

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("actor", "item")


@admin.register(ReviewItem)
class ReviewItemAdmin(admin.ModelAdmin):
    """Read-only records; analysts act through the actions, which call the same services as
    the review pages."""

    # The rows through `admin_result_list` (accounts/templatetags/admin_rows.py).
    change_list_template = "admin/change_list_fast_rows.html"

    # Few and narrow enough that the Assignee is on screen at 1366 px beside the admin's
    # navigation and the filters (tests/reviews/test_admin_columns_browser.py).
    list_display = (
        "reasons_column",
        "priority",
        "status",
        "question",
        "decision_column",
        "assignee",
        "waiting",
    )
    list_display_links = ("reasons_column",)

    class Media:
        css = {"all": ("reviews/admin_list.css",)}

    list_filter = (
        "status",
        ReasonFilter,
        "verdict",
        ("assignee", admin.RelatedOnlyFieldListFilter),
        "created_at",
    )
    search_fields = ("summary",)  # and each subject's (`get_search_fields`)
    ordering = ("-priority", "created_at", "id")
    list_per_page = 50
    show_full_result_count = False
    paginator = EstimatedCountPaginator  # the unfiltered total is PostgreSQL's estimate
    actions = [
        "claim",
        "resolve_uphold",
        "resolve_override",
        "rerun",
        "dismiss",
        export_review_items_csv,
    ]
    inlines = [ReviewEventInline]
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "debate_link",
                    "reasons_column",
                    "summary",
                    "priority",
                    "status",
                    "assignee",
                    "created_at",
                    "claimed_at",
                    "closed_at",
                )
            },
        ),
        ("Verdict", {"fields": ("verdict", "decision_override", "note")}),
        ("Transcript", {"fields": ("transcript",)}),
    )
    readonly_fields = (
        "debate_link",
        "reasons_column",
        "summary",
        "priority",
        "status",
        "assignee",
        "created_at",
        "claimed_at",
        "closed_at",
        "verdict",
        "decision_override",
        "note",
        "transcript",
    )

    def get_search_fields(self, request):
        return [
            *(f for kind in subjects.all_subjects() for f in kind.search_fields),
            *self.search_fields,
        ]

    def get_search_results(self, request, queryset, search_term):
        """Django's search (every word, in any search field, `icontains`), with each subject's
        text looked up in its own table: `debate_id IN (debates whose question matches)`,
        which the debates' trigram index answers. One OR across the joined tables made
        PostgreSQL read every debate to count the matching items."""
        for word in smart_split(search_term):
            if word.startswith(('"', "'")) and word[0] == word[-1]:
                word = unescape_string_literal(word)
            matches = Q()
            for path in self.get_search_fields(request):
                relation, _, field = path.partition("__")
                if field:
                    related = ReviewItem._meta.get_field(relation).related_model
                    found = related.objects.filter(**{f"{field}__icontains": word})
                    matches |= Q(**{f"{relation}__in": found.values("pk")})
                else:
                    matches |= Q(**{f"{path}__icontains": word})
            queryset = queryset.filter(matches)
        return queryset, False

    def get_list_select_related(self, request):
        return [*_subject_related(), "assignee"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_review_permission(self, request):
        return request.user.is_staff and request.user.has_perm("reviews.change_reviewitem")

    @admin.display(description="Reasons", ordering="reason")
    def reasons_column(self, obj):
        return obj.reasons_display

    @admin.display(description="Question", ordering="debate__query")
    def question(self, obj):
        return obj.subject.admin_question(obj)

    @admin.display(description="Raised", ordering="created_at")
    def waiting(self, obj):
        """How long ago it was raised, in its largest unit ("3 hours"); the date on hover."""
        return format_html(
            '<time datetime="{}" title="{}">{} ago</time>',
            obj.created_at.isoformat(),
            date_format(timezone.localtime(obj.created_at), "DATETIME_FORMAT"),
            timesince(obj.created_at, depth=1),
        )

    @admin.display(description="Decision")
    def decision_column(self, obj):
        """The decision in effect, and the machine's when a reviewer changed it."""
        machine = obj.subject.admin_machine_decision(obj)
        effective = obj.subject.admin_effective_decision(obj)
        if effective in ("", "-", machine):
            return machine
        return f"{effective} (machine: {machine})"

    @admin.display(description="Debate or run")
    def debate_link(self, obj):
        return obj.subject.admin_link(obj)

    @admin.display(description="Transcript")
    def transcript(self, obj):
        failure = ""
        if obj.is_failure:
            failure = render_to_string("reviews/_failure_admin.html", {"item": obj})
        # The templates escape every stored text; the result is HTML we produced.
        return mark_safe(failure + obj.subject.admin_detail(obj))

    @admin.action(description="Claim the selected items", permissions=["review"])
    def claim(self, request, queryset):
        done, failed = 0, []
        for item_id in queryset.values_list("id", flat=True):
            try:
                services.review_claim(item_id=item_id, user=request.user)
                done += 1
            except services.ReviewConflict as exc:
                failed.append(exc.message)
        self._report(request, f"Claimed {done} item(s).", done, failed)

    @admin.action(description="Resolve: uphold the machine's decision", permissions=["review"])
    def resolve_uphold(self, request, queryset):
        form = NoteForm(request.POST if "apply" in request.POST else None)
        if form.is_bound and form.is_valid():
            done, failed = 0, []
            for item_id in queryset.values_list("id", flat=True):
                try:
                    services.review_resolve(
                        item_id=item_id,
                        user=request.user,
                        verdict=ReviewItem.Verdict.UPHOLD,
                        note=form.cleaned_data["note"],
                    )
                    done += 1
                except (services.ReviewConflict, ValidationError) as exc:
                    failed.append(getattr(exc, "message", None) or "; ".join(exc.messages))
            self._report(request, f"Upheld the machine's decision on {done} item(s).", done, failed)
            return None
        return TemplateResponse(
            request,
            "admin/reviews/reviewitem/resolve_uphold.html",
            {
                **self.admin_site.each_context(request),
                "title": "Uphold the machine's decision",
                "opts": self.model._meta,
                "items": queryset.select_related("debate", "assignee"),
                "form": form,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            },
        )

    @admin.action(
        description="Resolve: override the decision (with a note)", permissions=["review"]
    )
    def resolve_override(self, request, queryset):
        """Set the decision of each selected item's debate, with a note. A safety veto is never
        overridden to ACT here (that takes a claim and a confirmation, item by item: the review
        page or the API); items it cannot apply to (someone else holds them, the decision is
        the machine's already, the protocol has no such decision) are left as they are and
        reported."""
        items = list(queryset.select_related(*_subject_related(), "assignee"))
        decisions = sorted({d for item in items for d in item.subject.decisions(item)})
        form = OverrideForm(
            request.POST if "apply" in request.POST else None,
            decisions=decisions,
            may_override_veto=request.user.has_perm("reviews.override_safety_veto"),
        )
        if form.is_bound and form.is_valid():
            done, failed = 0, []
            for item in items:
                try:
                    services.review_resolve(
                        item_id=item.pk,
                        user=request.user,
                        verdict=ReviewItem.Verdict.OVERRIDE,
                        decision=form.cleaned_data["decision"],
                        note=form.cleaned_data["note"],
                    )
                    done += 1
                except (services.ReviewConflict, ValidationError, PermissionDenied) as exc:
                    message = getattr(exc, "message", None)
                    if isinstance(exc, ValidationError):
                        message = "; ".join(exc.messages)
                        if "confirm_veto_override" in getattr(exc, "error_dict", {}):
                            message = VETO_ELSEWHERE
                    failed.append(f"#{item.pk}: {message or exc}")
            self._report(
                request,
                f"Set the decision {form.cleaned_data['decision']} on {done} item(s).",
                done,
                failed,
            )
            return None
        return TemplateResponse(
            request,
            "admin/reviews/reviewitem/resolve_override.html",
            {
                **self.admin_site.each_context(request),
                "title": "Override the decision",
                "opts": self.model._meta,
                "items": items,
                "form": form,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            },
        )

    @admin.action(description="Re-run the selected failed debates and runs", permissions=["review"])
    def rerun(self, request, queryset):
        """Queue each item's failed debate (or run) again, from what is stored; the item is
        resolved as re-run. Other items, and items someone else holds, are reported."""
        done, failed = 0, []
        for item_id in queryset.values_list("id", flat=True):
            try:
                services.review_rerun(item_id=item_id, user=request.user)
                done += 1
            except (services.ReviewConflict, ValidationError) as exc:
                failed.append(
                    f"#{item_id}: " + (getattr(exc, "message", None) or "; ".join(exc.messages))
                )
        self._report(
            request,
            f"Queued {done} failed debate(s) or run(s) again; calls already made are not repeated.",
            done,
            failed,
        )

    @admin.action(description="Dismiss (with a note)", permissions=["review"])
    def dismiss(self, request, queryset):
        form = NoteForm(request.POST if "apply" in request.POST else None)
        if form.is_bound and form.is_valid():
            done, failed = 0, []
            for item_id in queryset.values_list("id", flat=True):
                try:
                    services.review_dismiss(
                        item_id=item_id, user=request.user, note=form.cleaned_data["note"]
                    )
                    done += 1
                except (services.ReviewConflict, ValidationError) as exc:
                    failed.append(getattr(exc, "message", None) or "; ".join(exc.messages))
            self._report(request, f"Dismissed {done} item(s).", done, failed)
            return None
        return TemplateResponse(
            request,
            "admin/reviews/reviewitem/dismiss.html",
            {
                **self.admin_site.each_context(request),
                "title": "Dismiss review items",
                "opts": self.model._meta,
                "items": queryset.select_related(*_subject_related(), "assignee"),
                "form": form,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            },
        )

    def _report(self, request, success: str, done: int, failed: list[str]) -> None:
        if done:
            self.message_user(request, success, messages.SUCCESS)
        for message in failed:
            self.message_user(request, message, messages.ERROR)
