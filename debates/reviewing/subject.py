"""A debate's review items: what the review queue does with them (see `reviews.subjects`).

A debate's items are resolved by upholding the machine's decision or overriding it with one of
its protocol's decisions; the latest verdict on a debate is the one that stands (upholding
clears an override an earlier item set), and the machine's `decision` is never changed. A
failed debate has no machine decision: its item is resolved only by an override, which sets the
decision the service answers with (the debate stays failed), or by a re-run.
"""

from __future__ import annotations

import html

from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Prefetch
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.text import Truncator

from debates import webhooks
from debates.models import Debate, Vote
from debates.recovery import debate_model_change, debate_rerun
from debates.reviewing.forms import DecideForm, ResolveForm
from debates.reviewing.pages import (
    allowed_decisions,
    debate_progress,
    decision_html,
    transcript_context,
)
from debates.reviewing.serializers import ReviewDebateDetailSerializer, ReviewDebateSerializer
from debates.reviewing.triage import vote_counts
from debates.selectors import debate_detail_queryset
from reviews import services, subjects
from reviews.events import ReviewConflict
from reviews.forms import RerunForm
from reviews.models import ReviewItem

ACT = "ACT"
REFUSE = "REFUSE"
VETO = "VETO"
OVERRIDE_VETO = "reviews.override_safety_veto"


def veto_seen(debate_id) -> str | None:
    """What the vetoing agent saw, in a line a reviewer confirms having read before overriding
    the veto: who vetoed, at what risk, and the rules' account of why (the agent's reasoning).
    None when no veto decided the debate."""
    row = (
        Debate.objects.filter(id=debate_id, metadata__veto_applied=True)
        .values_list("metadata__veto_agent", "metadata__veto_risk", "reasoning")
        .first()
    )
    if row is None:
        return None
    agent, risk, reasoning = row
    who = agent or "An agent"
    at = f" at risk {risk:g}" if isinstance(risk, int | float) else ""
    why = Truncator((reasoning or "").strip()).chars(400) or "(no reason given)"
    return f"{who} vetoed this debate{at}: {why}"


# What a queue row shows of its debate; the rest (transcript) is not loaded.
QUEUE_FIELDS = (
    "debate__id",
    "debate__query",
    "debate__protocol",
    "debate__status",
    "debate__decision",
    "debate__decision_override",
    "debate__consensus_type",
    "debate__metadata",
    "debate__review_status",
)


class DebateSubject(subjects.ReviewSubject):
    name = "debate"
    noun = "debate"
    group = "debate_id"
    verdicts = (ReviewItem.Verdict.UPHOLD, ReviewItem.Verdict.OVERRIDE)
    refusals = {
        ReviewItem.Verdict.KEEP: {"choice": "This item is a debate's: uphold or override instead."},
    }
    queue_related = ("debate",)
    queue_fields = QUEUE_FIELDS
    detail_related = ("debate",)
    search_fields = ("debate__query",)

    def detail_prefetch(self) -> list:
        return [
            Prefetch(
                "debate__review_items",
                queryset=ReviewItem.objects.order_by("-priority", "created_at", "id"),
            )
        ]

    def lock(self, group_id) -> Debate:
        return (
            Debate.objects.select_for_update()
            .only("id", "protocol", "status", "decision", "decision_override", "review_status")
            .get(id=group_id)
        )

    def set_review_status(self, group_id, status: str, **changes) -> None:
        Debate.objects.filter(id=group_id).update(
            review_status=status, updated_at=timezone.now(), **changes
        )

    def closed(self, group_id, items) -> None:
        for item in items:
            webhooks.notify_review_resolved(debate_id=group_id, item_id=item.pk)

    def overdue(self, group_id, items) -> None:
        for item in items:
            webhooks.notify_debate_event(
                debate_id=group_id, event=webhooks.Event.REVIEW_OVERDUE, review_item_id=item.pk
            )

    def fallback(self, *, locked: Debate, item, fallback) -> subjects.Resolution:
        """ "machine": the decision as it stands stays; "WARN": the effective decision becomes
        WARN (the machine's stays on record), unless the machine decided WARN already."""
        data = {"fallback": fallback, "machine_decision": locked.decision}
        if fallback != "WARN" or locked.decision == "WARN" or not locked.decision:
            return subjects.Resolution(data={**data, "decision": locked.effective_decision})
        return subjects.Resolution(
            data={**data, "decision": "WARN"},
            decision_override="WARN",
            changes={"decision_override": "WARN"},
        )

    def guard(self, *, locked: Debate, item, user, verdict, value) -> subjects.Guard | None:
        """Overriding a safety veto to ACT (see docs/analysts/review-queue.md): it takes the
        permission reviews.override_safety_veto, and a confirmation naming what the vetoing
        agent saw."""
        if verdict != ReviewItem.Verdict.OVERRIDE or (value or "").strip().upper() != ACT:
            return None
        seen = veto_seen(locked.pk)
        if seen is None:
            return None
        if not user.has_perm(OVERRIDE_VETO):
            raise PermissionDenied(
                "An agent vetoed this debate: overriding it to ACT needs the permission "
                f"{OVERRIDE_VETO} (role Operator)."
            )
        return subjects.Guard(seen=seen)

    def resolve(self, *, locked: Debate, item, user, verdict, value, note) -> subjects.Resolution:
        debate = locked
        if verdict == ReviewItem.Verdict.UPHOLD and not debate.decision:
            raise ValidationError(
                {
                    "verdict": f"The debate {debate.get_status_display().lower()} without a "
                    "decision, so there is none to uphold: set the decision (override), re-run "
                    "it, or dismiss the item."
                }
            )
        decision = (value or "").strip().upper()
        if verdict == ReviewItem.Verdict.OVERRIDE:
            choices = allowed_decisions(debate)
            if not choices:
                raise ValidationError(
                    {
                        "decision": f"The debate's protocol '{debate.protocol}' no longer exists, "
                        "so no decision can be set: dismiss the item instead."
                    }
                )
            if decision not in choices:
                replaces = f"replaces {debate.decision}" if debate.decision else "the debate gets"
                raise ValidationError(
                    {
                        "decision": f"Choose the decision that {replaces}: "
                        f"one of {', '.join(c for c in choices if c != debate.decision)}."
                    }
                )
            if decision == debate.decision:
                raise ValidationError(
                    {
                        "decision": f"{decision} is the machine's decision already; to keep it, "
                        "uphold instead of overriding."
                    }
                )
        else:
            decision = ""
        return subjects.Resolution(
            data={
                "verdict": verdict,
                "decision": decision or debate.decision,
                "machine_decision": debate.decision,
                "effective_before": debate.effective_decision,
            },
            decision_override=decision,
            changes={"decision_override": decision},
            outcome=decision or debate.decision,
        )

    def judged(self, item_ids) -> dict:
        """Each item's debate: its protocol, the machine's decision, and each agent's final
        vote by role (a VETO is REFUSE: what it decides). 2 queries."""
        debates: dict = {}
        for item_id, debate_id, protocol, decision in ReviewItem.objects.filter(
            pk__in=item_ids, debate__isnull=False
        ).values_list("pk", "debate_id", "debate__protocol", "debate__decision"):
            debates.setdefault(debate_id, []).append((item_id, protocol, decision))
        agents: dict = {}
        for debate_id, name, decision in Vote.objects.filter(
            debate_id__in=list(debates)
        ).values_list("debate_id", "participant__name", "decision"):
            agents.setdefault(debate_id, {})[name] = REFUSE if decision == VETO else decision
        return {
            item_id: subjects.Judged(protocol, decision, agents.get(debate_id, {}))
            for debate_id, found in debates.items()
            for item_id, protocol, decision in found
        }

    def rerun(self, *, locked: Debate, item, user, note, model=None) -> None:
        if locked.status != Debate.Status.FAILED:
            raise ReviewConflict(
                f"The debate is {locked.status}, not failed: it was queued again already."
            )
        if model is not None:
            changed = debate_model_change(debate=locked, model=model)
            note = "; ".join(part for part in (note, changed) if part)
        debate_rerun(debate_id=locked.pk, user=user, note=note)

    # --- pages ---------------------------------------------------------------------------

    def page(self, request, item, flags, forms):
        debate = debate_detail_queryset().get(id=item.debate_id)
        decisions = allowed_decisions(debate)
        posted = forms.get("resolve_form")
        context = {
            **transcript_context(debate),
            "resolve_form": posted
            or ResolveForm(
                machine_decision=debate.decision, decisions=decisions, initial={"verdict": ""}
            ),
            "vetoed": bool((debate.metadata or {}).get("veto_applied")),
            "veto_confirm": self._veto_confirm(debate, posted),
        }
        if item.is_failure:
            context.update(
                {
                    "failure": True,
                    "progress": debate_progress(debate),
                    "can_rerun": flags["can_close"] and debate.status == debate.Status.FAILED,
                    "decide_form": forms.get("decide_form")
                    or DecideForm(prefix="decide", decisions=decisions),
                    "rerun_form": forms.get("rerun_form") or RerunForm(prefix="rerun"),
                }
            )
        return "debates/review_item.html", context

    @staticmethod
    def _veto_confirm(debate: Debate, posted) -> dict | None:
        """The separate confirmation step of a veto override refused for want of it: what the
        vetoing agent saw, and the verdict and note to send again with the confirmation."""
        if posted is None or not posted.is_bound or not posted.errors:
            return None
        data = posted.data
        if data.get("verdict") != ReviewItem.Verdict.OVERRIDE or data.get("decision") != ACT:
            return None
        seen = veto_seen(debate.pk)
        if seen is None:
            return None
        return {"seen": seen, "decision": ACT, "note": data.get("note", "")}

    def queue_cells(self, item, link) -> str:
        debate = item.debate
        question = html.escape(Truncator(debate.query).chars(120))
        votes = ", ".join(
            f"{html.escape(str(count))}&nbsp;{html.escape(str(decision))}"
            for decision, count in vote_counts(debate.metadata or {})
        )
        return SafeString(
            f'<td><a href="{html.escape(link)}">{question}</a></td>\n'
            f'<td data-label="Decision">{decision_html(debate)}</td>\n'
            f'<td data-label="Votes">{votes}</td>'
        )

    def submission(self, request, item):
        debate = item.debate
        if item.is_failure:
            form = DecideForm(request.POST, prefix="decide", decisions=allowed_decisions(debate))
            return subjects.Submission(
                form=form,
                form_name="decide_form",
                perform=lambda user, stage: services.review_resolve(
                    item_id=item.pk,
                    user=user,
                    verdict=ReviewItem.Verdict.OVERRIDE,
                    decision=form.cleaned_data["decision"],
                    note=form.cleaned_data["note"],
                    stage=stage,
                ),
                success=lambda done: (
                    f"Resolved review item #{done.pk}: the debate's decision "
                    f"is now {done.decision_override} (set by you; the debate failed before "
                    "deciding)."
                ),
            )
        form = ResolveForm(
            request.POST, machine_decision=debate.decision, decisions=allowed_decisions(debate)
        )

        def success(done: ReviewItem) -> str:
            if done.verdict == ReviewItem.Verdict.OVERRIDE:
                return (
                    f"Resolved review item #{done.pk}: the decision is now "
                    f"{done.decision_override} (the machine decided {debate.decision})."
                )
            return f"Resolved review item #{done.pk}: upheld the machine's {debate.decision}."

        return subjects.Submission(
            form=form,
            form_name="resolve_form",
            perform=lambda user, stage: services.review_resolve(
                item_id=item.pk,
                user=user,
                verdict=form.cleaned_data["verdict"],
                decision=form.cleaned_data.get("decision") or "",
                note=form.cleaned_data["note"],
                confirm_veto_override=form.cleaned_data.get("confirm_veto_override", False),
                stage=stage,
            ),
            success=success,
        )

    def siblings(self, item):
        return [i for i in item.debate.review_items.all() if i.pk != item.pk]

    # --- admin and API ---------------------------------------------------------------------

    def describe(self, item) -> str:
        return f"“{Truncator(item.debate.query).chars(100)}”"

    def admin_question(self, item) -> str:
        return item.debate.query[:80]

    def admin_machine_decision(self, item) -> str:
        return item.debate.decision or f"- ({item.debate.status})"

    def decisions(self, item) -> tuple[str, ...]:
        return allowed_decisions(item.debate)

    def admin_effective_decision(self, item) -> str:
        return item.debate.effective_decision or "-"

    def admin_link(self, item) -> str:
        return format_html(
            '<a href="{}">{}</a> · <a href="{}">review page</a>',
            reverse("admin:debates_debate_change", args=[item.debate_id]),
            item.debate.query[:100],
            reverse("reviews:item", args=[item.pk]),
        )

    def admin_detail(self, item) -> str:
        debate = debate_detail_queryset().get(id=item.debate_id)
        return render_to_string("debates/_review_transcript.html", transcript_context(debate))

    def api_field(self, *, detail: bool):
        serializer = ReviewDebateDetailSerializer if detail else ReviewDebateSerializer
        return serializer(
            read_only=True, allow_null=True, help_text="The debate, for a debate's item."
        )


DEBATE = DebateSubject()
