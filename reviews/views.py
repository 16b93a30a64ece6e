"""Staff pages: the queue, one item's review page, and the actions on it. Thin: forms, a
service or selector call, a template."""

from __future__ import annotations

from functools import wraps

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from api.pagination import EstimatedCountPaginator
from reviews import assignment, selectors, services
from reviews.forms import AssignForm, DutyForm, NoteForm, QueueFilterForm, ReleaseForm, RerunForm
from reviews.models import ReviewItem
from reviews.queue_rows import queue_rows

READ_QUEUE = "reviews.view_reviewitem"
WORK_QUEUE = "reviews.change_reviewitem"


def staff_required(view=None, *, perm: str = READ_QUEUE):
    """Anonymous users go to the login page; signed-in users without `perm` get 403. Reading
    the queue takes `reviews.view_reviewitem`, acting on it `reviews.change_reviewitem` (both
    in the role Reviewer); `is_staff` alone gives neither."""
    if view is None:
        return lambda v: staff_required(v, perm=perm)

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not request.user.is_authenticated:
            target = request.get_full_path()
            if request.method != "GET" and "pk" in kwargs:
                target = reverse("reviews:item", args=[kwargs["pk"]])
            return redirect_to_login(target)
        if not request.user.has_perm(perm):
            raise PermissionDenied(f"The review queue needs the Reviewer role (permission {perm}).")
        return view(request, *args, **kwargs)

    return wrapped


QUEUE_DEFAULTS = {"status": "active", "per_page": "50"}


@require_GET
@staff_required
def queue(request):
    params = {**QUEUE_DEFAULTS, **request.GET.dict()}
    form = QueueFilterForm(params, reviewers=selectors.reviewers())
    page, rows = None, []
    if form.is_valid():
        items = selectors.queue_items(user=request.user, **form.filters())
        page = EstimatedCountPaginator(items, form.cleaned_data["per_page"]).get_page(
            params.get("page")
        )
        rows = queue_rows(page.object_list)
    view = {
        ("me", "claimed"): "mine",
        ("me", "open"): "assigned",
        ("none", "open"): "unassigned",
    }.get((params.get("assignee", ""), params.get("status", "")), "")
    on_duty, since, waiting = assignment.duty_of(request.user)
    return render(
        request,
        "reviews/queue.html",
        {
            "form": form,
            "page": page,
            "rows": rows,
            "view": view,
            "duty": {"on": on_duty, "since": since, "waiting": waiting},
            "can_work": request.user.has_perm(WORK_QUEUE),
        },
        status=200 if page is not None else 400,
    )


@require_POST
@staff_required(perm=WORK_QUEUE)
def duty(request):
    """The queue page's on-duty toggle."""
    form = DutyForm(request.POST)
    form.is_valid()
    on = form.cleaned_data.get("on_duty", False)
    assignment.duty_set(user=request.user, on_duty=on)
    messages.success(
        request,
        "You are on duty: new review items are assigned to you when you have the fewest open."
        if on
        else "You are off duty: no more items are assigned to you; your open unclaimed items "
        "went back to be routed to the reviewers on duty.",
    )
    return redirect(reverse("reviews:queue"))


def _item_or_404(pk) -> ReviewItem:
    try:
        return selectors.review_item_get(pk)
    except ReviewItem.DoesNotExist:
        raise Http404(f"There is no review item #{pk}.") from None


def _action_flags(request, item: ReviewItem) -> dict:
    mine = item.assignee_id == request.user.pk
    can_act = request.user.has_perm(WORK_QUEUE)
    is_open = item.status == ReviewItem.Status.OPEN
    routed_elsewhere = is_open and item.assignee_id is not None and not mine
    return {
        "can_claim": can_act and is_open and not routed_elsewhere,
        "can_take": can_act and routed_elsewhere,
        "can_assign": can_act and is_open,
        "can_release": can_act
        and item.status == ReviewItem.Status.CLAIMED
        and (mine or request.user.is_superuser),
        "can_close": can_act
        and (
            (is_open and not routed_elsewhere)
            or (item.status == ReviewItem.Status.CLAIMED and mine)
        ),
    }


def _render_item(request, pk, *, status=200, **forms):
    """The item's page: what every item shows, and what its subject adds (and its template)."""
    item = _item_or_404(pk)
    flags = _action_flags(request, item)
    template, context = item.subject.page(request, item, flags, forms)
    previous_id, next_id = selectors.queue_neighbours(item, user=request.user)
    events = selectors.events_seen_by(item, request.user)
    context = {
        "item": item,
        "blind": selectors.blind_to(item, events, request.user),
        "previous_id": previous_id,
        "next_id": next_id,
        "others": selectors.other_items(item),
        "events": events,
        **flags,
        "dismiss_form": forms.get("dismiss_form") or NoteForm(prefix="dismiss"),
        "release_form": forms.get("release_form") or ReleaseForm(prefix="release"),
        "assign_form": forms.get("assign_form")
        or (
            AssignForm(
                prefix="assign",
                reviewers=selectors.assignable_reviewers(),
                initial={"assignee": str(item.assignee_id or "")},
            )
            if flags["can_assign"]
            else None
        ),
        **context,
    }
    return render(request, template, context, status=status)


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
    if request.POST.get("and_next"):
        _, next_id = selectors.queue_neighbours(done, user=request.user)
        if next_id is not None:
            return redirect(reverse("reviews:item", args=[next_id]))
        messages.info(request, "That was the last item in the queue.")
    return redirect(next_url or reverse("reviews:item", args=[pk]))


@require_POST
@staff_required(perm=WORK_QUEUE)
def claim(request, pk):
    return _perform(
        request,
        pk,
        lambda: services.review_claim(item_id=pk, user=request.user),
        success=lambda i: f"You claimed review item #{i.pk}.",
    )


@require_POST
@staff_required(perm=WORK_QUEUE)
def take(request, pk):
    return _perform(
        request,
        pk,
        lambda: services.review_take(item_id=pk, user=request.user),
        success=lambda i: f"You took review item #{i.pk}: it is yours.",
    )


@require_POST
@staff_required(perm=WORK_QUEUE)
def assign(request, pk):
    reviewers = selectors.assignable_reviewers()
    form = AssignForm(request.POST, prefix="assign", reviewers=reviewers)

    def perform():
        chosen = form.cleaned_data["assignee"]
        assignee = reviewers.get(pk=chosen) if chosen else None
        return services.review_assign(item_id=pk, user=request.user, assignee=assignee)

    def success(done: ReviewItem) -> str:
        if done.assignee is None:
            return f"Review item #{done.pk} is unassigned."
        return f"Review item #{done.pk} is assigned to {done.assignee.get_username()}."

    return _perform(request, pk, perform, form=form, form_name="assign_form", success=success)


@require_POST
@staff_required(perm=WORK_QUEUE)
def release(request, pk):
    form = ReleaseForm(request.POST, prefix="release")
    return _perform(
        request,
        pk,
        lambda: services.review_release(
            item_id=pk, user=request.user, note=form.cleaned_data["note"]
        ),
        form=form,
        form_name="release_form",
        success=lambda i: f"Review item #{i.pk} is back in the queue.",
    )


def waiting_message(item: ReviewItem) -> str:
    """What a reviewer is told when their verdict did not close the item."""
    if item.stage == ReviewItem.Stage.ADJUDICATION:
        return (
            f"Your review of item #{item.pk} differs from the first one: the item goes to "
            "adjudication by a third reviewer. Nothing takes effect until then."
        )
    applied = item.events.filter(action="reviewed").order_by("-id").values_list("data", flat=True)
    if next(iter(applied), {}).get("applied"):
        return (
            f"Your review of item #{item.pk} took effect; a second reviewer now reviews the item "
            "independently (a disagreement goes to adjudication)."
        )
    return (
        f"Your review of item #{item.pk} is recorded. It takes effect once a second reviewer, "
        "reviewing it independently, agrees."
    )


@require_POST
@staff_required(perm=WORK_QUEUE)
def resolve(request, pk):
    """The verdict the item's subject takes (a debate's uphold/override or decision, a
    contradiction's value to keep), through the subject's form."""
    item = ReviewItem.objects.select_related(*selectors.subject_related()).filter(pk=pk).first()
    if item is None:
        raise Http404(f"There is no review item #{pk}.")
    submission = item.subject.submission(request, item)
    if isinstance(submission, str):
        messages.error(request, submission)
        return _render_item(request, pk, status=400)
    stage = request.POST.get("review_stage")
    if stage not in ReviewItem.Stage.values:
        stage = None  # a form without it: the holder gives the review the item waits for
    return _perform(
        request,
        pk,
        lambda: submission.perform(request.user, stage),
        form=submission.form,
        form_name=submission.form_name,
        success=lambda done: waiting_message(done) if done.is_active else submission.success(done),
        next_url=reverse("reviews:queue"),
    )


@require_POST
@staff_required(perm=WORK_QUEUE)
def dismiss(request, pk):
    form = NoteForm(request.POST, prefix="dismiss")
    return _perform(
        request,
        pk,
        lambda: services.review_dismiss(
            item_id=pk, user=request.user, note=form.cleaned_data["note"]
        ),
        form=form,
        form_name="dismiss_form",
        success=lambda i: f"Dismissed review item #{i.pk}.",
        next_url=reverse("reviews:queue"),
    )


@require_POST
@staff_required(perm=WORK_QUEUE)
def rerun(request, pk):
    item = ReviewItem.objects.filter(pk=pk).first()
    if item is None:
        raise Http404(f"There is no review item #{pk}.")
    if not item.is_failure:
        messages.error(
            request,
            "Only a failed debate or run can be re-run: resolve or dismiss this item instead.",
        )
        return _render_item(request, pk, status=400)
    form = RerunForm(request.POST, prefix="rerun")

    def success(done: ReviewItem) -> str:
        what = done.subject.noun
        return (
            f"Re-ran review item #{done.pk}'s {what}: it is queued again and resumes from "
            "what is stored (calls already made are not repeated)."
        )

    return _perform(
        request,
        pk,
        lambda: services.review_rerun(
            item_id=pk,
            user=request.user,
            note=form.cleaned_data["note"],
            model=form.cleaned_data.get("model") or None,
        ),
        form=form,
        form_name="rerun_form",
        success=success,
        next_url=reverse("reviews:queue"),
    )
