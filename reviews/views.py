"""Staff pages: the queue, one item's review page, and the actions on it. Thin: forms, a
service or selector call, a template."""

from __future__ import annotations

from functools import wraps

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from contradictions import selectors as contradiction_selectors
from contradictions.services import review_choices
from debates.selectors import debate_detail_queryset
from reviews import selectors, services
from reviews.forms import (
    DecideForm,
    KeepForm,
    NoteForm,
    QueueFilterForm,
    ReleaseForm,
    RerunForm,
    ResolveForm,
)
from reviews.models import ReviewItem


def staff_required(view):
    """Anonymous users go to the login page; signed-in users who are not staff get 403."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not request.user.is_authenticated:
            target = request.get_full_path()
            if request.method != "GET" and "pk" in kwargs:
                target = reverse("reviews:item", args=[kwargs["pk"]])
            return redirect_to_login(target)
        if not request.user.is_staff:
            raise PermissionDenied("The review queue is for staff only.")
        return view(request, *args, **kwargs)

    return wrapped


QUEUE_DEFAULTS = {"status": "active", "per_page": "50"}


@require_GET
@staff_required
def queue(request):
    params = {**QUEUE_DEFAULTS, **request.GET.dict()}
    form = QueueFilterForm(params, reviewers=selectors.reviewers())
    page = None
    if form.is_valid():
        items = selectors.queue_items(user=request.user, **form.filters())
        page = Paginator(items, form.cleaned_data["per_page"]).get_page(params.get("page"))
    view = {"me": "mine", "none": "unassigned"}.get(params.get("assignee", ""), "")
    return render(
        request,
        "reviews/queue.html",
        {"form": form, "page": page, "view": view},
        status=200 if page is not None else 400,
    )


def _item_or_404(pk) -> ReviewItem:
    try:
        return selectors.review_item_get(pk)
    except ReviewItem.DoesNotExist:
        raise Http404(f"There is no review item #{pk}.") from None


def _action_flags(request, item: ReviewItem) -> dict:
    mine = item.assignee_id == request.user.pk
    return {
        "can_claim": item.status == ReviewItem.Status.OPEN,
        "can_release": item.status == ReviewItem.Status.CLAIMED
        and (mine or request.user.is_superuser),
        "can_close": item.status == ReviewItem.Status.OPEN
        or (item.status == ReviewItem.Status.CLAIMED and mine),
    }


def _render_contradiction_item(request, item: ReviewItem, *, status=200, **forms):
    """A contradiction's item: the claims beside the arbitrator's resolution, and the pick."""
    run = contradiction_selectors.run_detail_queryset().get(id=item.contradiction.run_id)
    page = contradiction_selectors.arrange(run)
    case = next(c for c in page.cases if c.contradiction.pk == item.contradiction_id)
    context = {
        "item": item,
        "run": run,
        "case": case,
        "others": selectors.other_items_for_debate(item),
        "events": list(item.events.all()),
        **_action_flags(request, item),
        "keep_form": forms.get("keep_form")
        or KeepForm(choices=review_choices(case.contradiction), prefix="keep"),
        "dismiss_form": forms.get("dismiss_form") or NoteForm(prefix="dismiss"),
        "release_form": forms.get("release_form") or ReleaseForm(prefix="release"),
    }
    return render(request, "reviews/contradiction_item.html", context, status=status)


def _render_run_item(request, item: ReviewItem, *, status=200, **forms):
    """A failed contradiction run's item: why it failed, how far it got, and what to do."""
    run = contradiction_selectors.run_detail_queryset().get(id=item.contradiction_run_id)
    flags = _action_flags(request, item)
    context = {
        "item": item,
        "run": run,
        "page": contradiction_selectors.arrange(run),
        "others": selectors.other_items_for_debate(item),
        "events": list(item.events.all()),
        **flags,
        "can_rerun": flags["can_close"] and run.status == run.Status.FAILED,
        "rerun_form": forms.get("rerun_form") or RerunForm(prefix="rerun"),
        "dismiss_form": forms.get("dismiss_form") or NoteForm(prefix="dismiss"),
        "release_form": forms.get("release_form") or ReleaseForm(prefix="release"),
    }
    return render(request, "reviews/run_item.html", context, status=status)


def _render_item(request, pk, *, status=200, **forms):
    item = _item_or_404(pk)
    if item.is_contradiction:
        return _render_contradiction_item(request, item, status=status, **forms)
    if item.is_run_failure:
        return _render_run_item(request, item, status=status, **forms)
    debate = debate_detail_queryset().get(id=item.debate_id)
    decisions = services.allowed_decisions(debate)
    flags = _action_flags(request, item)
    context = {
        **selectors.transcript_context(debate),
        "item": item,
        "others": selectors.other_items_for_debate(item),
        "events": list(item.events.all()),
        **flags,
        "resolve_form": forms.get("resolve_form")
        or ResolveForm(machine_decision=debate.decision, decisions=decisions,
                       initial={"verdict": ""}),
        "dismiss_form": forms.get("dismiss_form") or NoteForm(prefix="dismiss"),
        "release_form": forms.get("release_form") or ReleaseForm(prefix="release"),
    }
    if item.is_failure:
        context.update({
            "failure": True,
            "progress": selectors.debate_progress(debate),
            "can_rerun": flags["can_close"] and debate.status == debate.Status.FAILED,
            "decide_form": forms.get("decide_form")
            or DecideForm(prefix="decide", decisions=decisions),
            "rerun_form": forms.get("rerun_form") or RerunForm(prefix="rerun"),
        })
    return render(request, "reviews/item.html", context, status=status)


@require_GET
@staff_required
def item(request, pk):
    return _render_item(request, pk)


def _perform(request, pk, action, *, form=None, form_name="", success, next_url=None):
    """Run a service; a conflict or a bad form re-renders the page with the message."""
    if form is not None and not form.is_valid():
        return _render_item(request, pk, status=400, **{form_name: form})
    try:
        done = action()
    except ReviewItem.DoesNotExist:
        raise Http404(f"There is no review item #{pk}.") from None
    except services.ReviewConflict as exc:
        messages.error(request, exc.message)
        return _render_item(request, pk, status=409)
    except ValidationError as exc:
        if form is None:
            raise
        for field, errors in exc.message_dict.items():
            for error in errors:
                form.add_error(field if field in form.fields else None, error)
        return _render_item(request, pk, status=400, **{form_name: form})
    messages.success(request, success(done))
    return redirect(next_url or reverse("reviews:item", args=[pk]))


@require_POST
@staff_required
def claim(request, pk):
    return _perform(
        request, pk,
        lambda: services.review_claim(item_id=pk, user=request.user),
        success=lambda i: f"You claimed review item #{i.pk}.",
    )


@require_POST
@staff_required
def release(request, pk):
    form = ReleaseForm(request.POST, prefix="release")
    return _perform(
        request, pk,
        lambda: services.review_release(
            item_id=pk, user=request.user, note=form.cleaned_data["note"]
        ),
        form=form, form_name="release_form",
        success=lambda i: f"Review item #{i.pk} is back in the queue.",
    )


@require_POST
@staff_required
def resolve(request, pk):
    item = ReviewItem.objects.select_related("debate", "contradiction").filter(pk=pk).first()
    if item is None:
        raise Http404(f"There is no review item #{pk}.")
    if item.is_contradiction:
        return _keep(request, item)
    if item.is_run_failure:
        messages.error(request, "A failed contradiction run has no decision to set: re-run it, "
                       "or dismiss the item.")
        return _render_item(request, pk, status=400)
    if item.is_failure:
        return _decide(request, item)
    debate = item.debate
    form = ResolveForm(
        request.POST,
        machine_decision=debate.decision,
        decisions=services.allowed_decisions(debate),
    )

    def success(done: ReviewItem) -> str:
        if done.verdict == ReviewItem.Verdict.OVERRIDE:
            return (f"Resolved review item #{done.pk}: the decision is now "
                    f"{done.decision_override} (the machine decided {debate.decision}).")
        return f"Resolved review item #{done.pk}: upheld the machine's {debate.decision}."

    return _perform(
        request, pk,
        lambda: services.review_resolve(
            item_id=pk, user=request.user, verdict=form.cleaned_data["verdict"],
            decision=form.cleaned_data.get("decision") or "", note=form.cleaned_data["note"],
        ),
        form=form, form_name="resolve_form", success=success,
        next_url=reverse("reviews:queue"),
    )


@require_POST
@staff_required
def dismiss(request, pk):
    form = NoteForm(request.POST, prefix="dismiss")
    return _perform(
        request, pk,
        lambda: services.review_dismiss(
            item_id=pk, user=request.user, note=form.cleaned_data["note"]
        ),
        form=form, form_name="dismiss_form",
        success=lambda i: f"Dismissed review item #{i.pk}.",
        next_url=reverse("reviews:queue"),
    )


def _decide(request, item: ReviewItem):
    """A failed debate's verdict: the decision the analyst sets (an override of nothing)."""
    form = DecideForm(request.POST, prefix="decide",
                      decisions=services.allowed_decisions(item.debate))
    return _perform(
        request, item.pk,
        lambda: services.review_resolve(
            item_id=item.pk, user=request.user, verdict=ReviewItem.Verdict.OVERRIDE,
            decision=form.cleaned_data["decision"], note=form.cleaned_data["note"],
        ),
        form=form, form_name="decide_form",
        success=lambda done: f"Resolved review item #{done.pk}: the debate's decision is now "
        f"{done.decision_override} (set by you; the debate failed before deciding).",
        next_url=reverse("reviews:queue"),
    )


@require_POST
@staff_required
def rerun(request, pk):
    item = ReviewItem.objects.filter(pk=pk).only("id", "reason").first()
    if item is None:
        raise Http404(f"There is no review item #{pk}.")
    if not item.is_failure:
        messages.error(request, "Only a failed debate or run can be re-run: resolve or dismiss "
                       "this item instead.")
        return _render_item(request, pk, status=400)
    form = RerunForm(request.POST, prefix="rerun")

    def success(done: ReviewItem) -> str:
        what = "debate" if done.debate_id else "contradiction run"
        return (f"Re-ran review item #{done.pk}'s {what}: it is queued again and resumes from "
                "what is stored (calls already made are not repeated).")

    return _perform(
        request, pk,
        lambda: services.review_rerun(item_id=pk, user=request.user,
                                      note=form.cleaned_data["note"]),
        form=form, form_name="rerun_form", success=success,
        next_url=reverse("reviews:queue"),
    )


def _keep(request, item: ReviewItem):
    form = KeepForm(request.POST, prefix="keep",
                    choices=review_choices(item.contradiction))

    def success(done: ReviewItem) -> str:
        kept = done.contradiction.review_finding
        what = (f"kept {kept.report.agent_name}'s value" if kept
                else "kept every value, each in its own context")
        return f"Resolved review item #{done.pk}: {what}. The run's reports are adjusted."

    return _perform(
        request, item.pk,
        lambda: services.review_keep(
            item_id=item.pk, user=request.user, choice=form.cleaned_data["choice"],
            note=form.cleaned_data["note"],
        ),
        form=form, form_name="keep_form", success=success,
        next_url=reverse("reviews:queue"),
    )
