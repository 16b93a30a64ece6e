"""Pages for signed-in users: the debate list, the form that starts one, and the live page.

The live page polls `debate_live` with the version it shows; the view answers 204 while nothing
has changed and the re-rendered partial when something has. Every web process can answer, as
the state lives in PostgreSQL only.
"""

import json
import uuid

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from accounts import ratelimit
from api.links import row_links
from api.pagination import EstimatedCountPaginator
from debates import selectors, services
from debates.forms import DebateFilterForm, DebateStartForm, protocol_name
from debates.models import Debate, LLMCall
from debates.transcript import render_markdown

PAGE_SIZE = 50
POLL_INTERVAL_MS = 500


def _so_far(request, debate_id):
    try:
        return selectors.debate_so_far(debate_id=debate_id, user=request.user)
    except Debate.DoesNotExist:
        raise Http404("No such debate.") from None


def _visible(request, debate_id) -> Debate:
    try:
        return selectors.debate_get_visible(debate_id=debate_id, user=request.user)
    except Debate.DoesNotExist:
        raise Http404("No such debate.") from None


@login_required
@require_GET
def debate_list(request):
    form = DebateFilterForm(request.GET or None)
    debates = selectors.debate_list(user=request.user, **form.filters()).defer(
        "metadata", "reasoning", "injection_findings", "options"
    )
    page = EstimatedCountPaginator(debates, PAGE_SIZE).get_page(request.GET.get("page"))
    link = row_links("debates:detail", key=uuid.UUID)
    for debate in page.object_list:
        debate.protocol_name = protocol_name(debate.protocol)
        debate.url = link(debate.id)
    return render(
        request,
        "debates/list.html",
        {
            "page": page,
            "form": form,
            "filtered": form.is_bound and any(v not in ("", None) for v in form.filters().values()),
            # Read once for the page, not once per row.
            "reads_every_debate": request.user.has_perm("debates.view_debate"),
        },
        status=400 if form.is_bound and form.errors else 200,
    )


@login_required
@require_http_methods(["GET", "POST"])
def debate_start(request):
    form = DebateStartForm(request.POST or None)
    if request.method == "POST":
        verdict = ratelimit.hit_create(ratelimit.DEBATE_CREATE, user=request.user)
        if not verdict.allowed:  # the API's limit, on the same counter
            return ratelimit.form_refused(request, "debates/start.html", form, verdict, "debates")
    if request.method == "POST" and form.is_valid():
        try:
            debate = services.debate_create(
                query=form.cleaned_data["question"],
                protocol=form.cleaned_data["protocol"],
                options=form.cleaned_data["options"],
                created_by=request.user,
            )
        except ValidationError as exc:
            for name, messages in exc.message_dict.items():
                name = "question" if name == "query" else name  # the service's name for it
                form.add_error(name if name in form.fields else None, messages)
        else:
            return redirect("debates:detail", debate_id=debate.id)
    return render(request, "debates/start.html", {"form": form}, status=400 if form.errors else 200)


def may_read_replies(user) -> bool:
    """Raw replies: staff who read every debate (Reviewer, Operator) or may read model calls in
    the admin, as the review page shows reviewers the raw replies that could not be parsed."""
    return user.is_staff and (
        user.has_perm("debates.view_debate") or user.has_perm("debates.view_llmcall")
    )


def may_read_prompts(user) -> bool:
    """The messages sent: whoever may read model calls in the admin (`debates.view_llmcall`;
    superusers), as the admin has it."""
    return user.has_perm("debates.view_llmcall")


def _live_context(request, debate_id) -> dict:
    user = request.user
    so_far = _so_far(request, debate_id)
    reviewer = user.has_perm("reviews.view_reviewitem")
    return {
        "so_far": so_far,
        "can_read_replies": may_read_replies(user),
        "can_read_prompts": may_read_prompts(user),
        "review_items": selectors.debate_review_items(so_far.debate.pk) if reviewer else [],
    }


@login_required
@require_GET
def debate_detail(request, debate_id):
    context = {**_live_context(request, debate_id), "poll_interval_ms": POLL_INTERVAL_MS}
    return render(request, "debates/detail.html", context)


@login_required
@require_GET
def debate_call(request, debate_id, call_id):
    """One call's prompt and raw reply (the timeline opens a call with it), for the staff who
    may read them; 404 for a call of a debate the user may not see, as for the debate."""
    try:
        call = selectors.debate_call(debate_id=debate_id, call_id=call_id, user=request.user)
    except LLMCall.DoesNotExist:
        raise Http404("No such call.") from None
    if not may_read_replies(request.user):
        raise PermissionDenied("A call's prompt and raw reply are for staff who review debates.")
    context = {
        "call": call,
        "can_read_prompts": may_read_prompts(request.user),
        "parsed": json.dumps(call.parsed, indent=2, ensure_ascii=False, sort_keys=True),
    }
    return render(request, "debates/call.html", context)


@login_required
@require_GET
def debate_live(request, debate_id):
    """The part of the debate page that changes; 204 when the caller's `since` is current,
    answered from one query (the version), before anything else is loaded."""
    since = request.GET.get("since")
    if since:
        try:
            version = selectors.debate_live_version(debate_id=debate_id, user=request.user)
        except Debate.DoesNotExist:
            raise Http404("No such debate.") from None
        if since == version:
            return HttpResponse(status=204)
    response = render(request, "debates/_live.html", _live_context(request, debate_id))
    response["Cache-Control"] = "no-store"
    return response


def _download(response: HttpResponse, filename: str) -> HttpResponse:
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@login_required
@require_GET
def debate_json(request, debate_id):
    debate = _visible(request, debate_id)
    response = JsonResponse(selectors.debate_export(debate), json_dumps_params={"indent": 2})
    return _download(response, f"debate-{debate.id}.json")


@login_required
@require_GET
def debate_markdown(request, debate_id):
    debate = _visible(request, debate_id)
    response = HttpResponse(render_markdown(debate), content_type="text/markdown; charset=utf-8")
    return _download(response, f"debate-{debate.id}.md")
