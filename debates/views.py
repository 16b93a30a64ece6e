"""Pages for signed-in users: the debate list, the form that starts one, and the live page.

The live page polls `debate_live` with the version it shows; the view answers 204 while nothing
has changed and the re-rendered partial when something has. Every web process can answer, as
the state lives in PostgreSQL only.
"""

import uuid

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from accounts import ratelimit
from api.links import row_links
from api.pagination import EstimatedCountPaginator
from debates import selectors, services
from debates.forms import DebateFilterForm, DebateStartForm, protocol_name
from debates.models import Debate
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
            "filtered": form.is_bound and any(form.filters().values()),
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


@login_required
@require_GET
def debate_detail(request, debate_id):
    context = {"so_far": _so_far(request, debate_id), "poll_interval_ms": POLL_INTERVAL_MS}
    return render(request, "debates/detail.html", context)


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
    so_far = _so_far(request, debate_id)
    response = render(request, "debates/_live.html", {"so_far": so_far})
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
