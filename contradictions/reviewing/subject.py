"""Contradiction runs as subjects of the review queue (see `reviews.subjects`).

Two kinds of item: a contradiction the consensus could not settle (`flag_for_review`, resolved
by picking the value to keep, or dismissed), and a run that failed for good (`run_failed`,
re-run or dismissed). Both belong to their run: actions lock the run, and the run's review
status follows all of them.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db.models import Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.text import Truncator

from contradictions import selectors
from contradictions.acting import (
    contradiction_apply_review,
    contradiction_run_retry,
    review_choices,
)
from contradictions.detection import format_value
from contradictions.models import ContradictionRun
from contradictions.reviewing.forms import KeepForm
from contradictions.reviewing.serializers import (
    ReviewContradictionSerializer,
    ReviewRunSerializer,
)
from contradictions.running import DISMISSED
from reviews import services, subjects
from reviews.events import ReviewConflict
from reviews.forms import RerunForm
from reviews.models import ReviewItem


class _RunGroup(subjects.ReviewSubject):
    """What a contradiction's item and a failed run's item share: their run."""

    verdicts = ()
    sibling_related = ("contradiction",)

    def group_items(self, group_id) -> Q:
        return Q(contradiction__run_id=group_id) | Q(contradiction_run_id=group_id)

    def lock(self, group_id) -> ContradictionRun:
        return (
            ContradictionRun.objects.select_for_update()
            .only("id", "status", "review_status")
            .get(id=group_id)
        )

    def set_review_status(self, group_id, status: str, **changes) -> None:
        ContradictionRun.objects.filter(id=group_id).update(
            review_status=status, updated_at=timezone.now(), **changes
        )

    def _run_page(self, run_id):
        run = selectors.run_detail_queryset().get(id=run_id)
        return run, selectors.arrange(run)


class ContradictionSubject(_RunGroup):
    name = "contradiction"
    noun = "contradiction"
    group = "contradiction__run_id"
    verdicts = (ReviewItem.Verdict.KEEP,)
    refusals = {
        ReviewItem.Verdict.UPHOLD: {
            "verdict": "This item is a contradiction: pick the value to keep instead."
        },
        ReviewItem.Verdict.OVERRIDE: {
            "verdict": "This item is a contradiction: pick the value to keep instead."
        },
    }
    queue_related = ("contradiction",)
    queue_fields = (
        "contradiction__id",
        "contradiction__metric",
        "contradiction__severity",
        "contradiction__run_id",
    )
    detail_related = ("contradiction__run",)
    search_fields = ("contradiction__metric",)

    def group_of(self, item):
        return item.contradiction.run_id

    def resolve(self, *, locked, item, user, verdict, value, note) -> subjects.Resolution:
        contradiction = contradiction_apply_review(
            contradiction_id=item.contradiction_id, user=user, choice=value, note=note
        )
        kept = contradiction.review_finding
        return subjects.Resolution(
            data={
                "verdict": ReviewItem.Verdict.KEEP,
                "choice": contradiction.review_action,
                "finding": kept.pk if kept else None,
                "kept": _describe_finding(kept) if kept else "every value, each in its own context",
            },
            outcome=value,
        )

    def dismissed(self, *, item, user, note) -> None:
        contradiction_apply_review(
            contradiction_id=item.contradiction_id, user=user, choice=DISMISSED, note=note
        )

    def rerun(self, *, locked, item, user, note, model=None) -> None:
        raise AssertionError("a contradiction's item is never a failure")

    def page(self, request, item, flags, forms):
        run, page = self._run_page(item.contradiction.run_id)
        case = next(c for c in page.cases if c.contradiction.pk == item.contradiction_id)
        return "contradictions/review_item.html", {
            "run": run,
            "case": case,
            "keep_form": forms.get("keep_form")
            or KeepForm(choices=review_choices(case.contradiction), prefix="keep"),
        }

    def queue_cells(self, item, link) -> str:
        contradiction = item.contradiction
        return format_html(
            '<td><a href="{}">Contradiction: {}</a></td>\n'
            '<td data-label="Decision">{} severity</td>\n<td data-label="Votes">—</td>',
            link,
            Truncator(contradiction.metric).chars(100),
            contradiction.get_severity_display(),
        )

    def submission(self, request, item):
        form = KeepForm(request.POST, prefix="keep", choices=review_choices(item.contradiction))

        def success(done: ReviewItem) -> str:
            kept = done.contradiction.review_finding
            what = (
                f"kept {kept.report.agent_name}'s value"
                if kept
                else "kept every value, each in its own context"
            )
            return f"Resolved review item #{done.pk}: {what}. The run's reports are adjusted."

        return subjects.Submission(
            form=form,
            form_name="keep_form",
            perform=lambda user, stage: services.review_keep(
                item_id=item.pk,
                user=user,
                choice=form.cleaned_data["choice"],
                note=form.cleaned_data["note"],
                stage=stage,
            ),
            success=success,
        )

    def describe(self, item) -> str:
        return f"contradiction on {item.contradiction.metric}"

    def admin_question(self, item) -> str:
        return f"Contradiction: {item.contradiction.metric}"[:80]

    def admin_machine_decision(self, item) -> str:
        return "flag_for_review"

    def admin_effective_decision(self, item) -> str:
        return item.contradiction.review_action or "-"

    def admin_link(self, item) -> str:
        return format_html(
            '<a href="{}">Contradiction run {}</a> ({}) · <a href="{}">review page</a>',
            reverse(
                "admin:contradictions_contradictionrun_change", args=[item.contradiction.run_id]
            ),
            str(item.contradiction.run_id)[:8],
            item.contradiction.metric[:100],
            reverse("reviews:item", args=[item.pk]),
        )

    def admin_detail(self, item) -> str:
        _, page = self._run_page(item.contradiction.run_id)
        case = next(c for c in page.cases if c.contradiction.pk == item.contradiction_id)
        # The templates escape every stored text; the result is HTML we produced.
        return mark_safe(
            "<style>"
            + render_to_string("contradictions/_styles.html")
            + "</style>"
            + render_to_string("contradictions/_case.html", {"case": case})
        )

    def api_field(self, *, detail: bool):
        return ReviewContradictionSerializer(
            read_only=True,
            allow_null=True,
            help_text="The contradiction, for a contradiction's item.",
        )


class RunSubject(_RunGroup):
    name = "contradiction_run"
    noun = "contradiction run"
    group = "contradiction_run_id"
    refusals = {
        ReviewItem.Verdict.UPHOLD: {
            "verdict": "A failed contradiction run has no decision to uphold or override: "
            "re-run it, or dismiss the item."
        },
        ReviewItem.Verdict.OVERRIDE: {
            "verdict": "A failed contradiction run has no decision to uphold or override: "
            "re-run it, or dismiss the item."
        },
        ReviewItem.Verdict.KEEP: {
            "choice": "This item is a failed run's: re-run it, or dismiss the item."
        },
    }
    queue_related = ("contradiction_run",)
    queue_fields = (
        "contradiction_run__id",
        "contradiction_run__status",
        "contradiction_run__error",
        "contradiction_run__review_status",
        "contradiction_run__contradictions_found",
    )
    detail_related = ("contradiction_run",)

    def rerun(self, *, locked, item, user, note, model=None) -> None:
        if model:
            raise ValidationError({"model": "A contradiction run has no model to change."})
        if locked.status != ContradictionRun.Status.FAILED:
            raise ReviewConflict(
                f"The run is {locked.status}, not failed: it was queued again already."
            )
        contradiction_run_retry(run_id=locked.pk, user=user, note=note)

    def page(self, request, item, flags, forms):
        run, page = self._run_page(item.contradiction_run_id)
        return "contradictions/review_run_item.html", {
            "run": run,
            "page": page,
            "can_rerun": flags["can_close"] and run.status == run.Status.FAILED,
            "rerun_form": forms.get("rerun_form") or RerunForm(prefix="rerun"),
        }

    def queue_cells(self, item, link) -> str:
        return format_html(
            '<td><a href="{}">Contradiction run {}</a></td>\n'
            '<td data-label="Decision">{}</td>\n<td data-label="Votes">—</td>',
            link,
            str(item.contradiction_run_id)[:8],
            item.contradiction_run.get_status_display().lower(),
        )

    def submission(self, request, item):
        return "A failed contradiction run has no decision to set: re-run it, or dismiss the item."

    def describe(self, item) -> str:
        return f"contradiction run {str(item.contradiction_run_id)[:8]}"

    def admin_question(self, item) -> str:
        return f"Contradiction run {str(item.contradiction_run_id)[:8]} failed"

    def admin_link(self, item) -> str:
        return format_html(
            '<a href="{}">Contradiction run {}</a> ({}) · <a href="{}">review page</a>',
            reverse(
                "admin:contradictions_contradictionrun_change", args=[item.contradiction_run_id]
            ),
            str(item.contradiction_run_id)[:8],
            item.contradiction_run.get_status_display().lower(),
            reverse("reviews:item", args=[item.pk]),
        )

    def api_field(self, *, detail: bool):
        return ReviewRunSerializer(
            read_only=True,
            allow_null=True,
            help_text="The run, for a failed run's item (run_failed).",
        )


CONTRADICTION = ContradictionSubject()
RUN = RunSubject()


def _describe_finding(finding) -> str:
    what = (
        format_value(finding.value, finding.unit)
        if finding.value is not None
        else finding.interpretation
    )
    return (
        f"{what} ({finding.source or 'source not stated'}, {finding.period or 'period not stated'})"
    )
