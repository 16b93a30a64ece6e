"""Pages for signed-in users: their contradiction runs, a form to start one, and a run's page
with each contradiction beside its resolution. Thin: a form, a service or selector, a template.
"""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from accounts import ratelimit
from contradictions import selectors, services
from contradictions.forms import RunStartForm
from contradictions.models import ContradictionRun

PAGE_SIZE = 50
REFRESH_SECONDS = 1


@login_required
@require_GET
def run_list(request):
    runs = selectors.run_list(user=request.user)
    page = Paginator(runs, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "contradictions/list.html", {"page": page})


@login_required
@require_http_methods(["GET", "POST"])
def run_start(request):
    form = RunStartForm(request.POST or None)
    if request.method == "POST":
        verdict = ratelimit.hit_create(ratelimit.CONTRADICTION_RUN_CREATE, user=request.user)
        if not verdict.allowed:  # the API's limit, on the same counter
            return ratelimit.form_refused(
                request, "contradictions/start.html", form, verdict, "contradiction runs"
            )
    if request.method == "POST" and form.is_valid():
        payload = form.cleaned_data["reports"]
        try:
            run = services.contradiction_run_create(
                reports=payload["reports"],
                created_by=request.user,
                origin=ContradictionRun.Origin.PAGE,
                value_threshold=payload.get("value_threshold"),
                confidence_gap=payload.get("confidence_gap"),
            )
        except (ValidationError, KeyError) as exc:
            messages = (
                exc.messages
                if isinstance(exc, ValidationError)
                else [
                    "Give the reports themselves (a run from a debate starts from the API or the "
                    "command)."
                ]
            )
            form.add_error("reports", messages)
        else:
            return redirect("contradictions:detail", run_id=run.id)
    return render(
        request, "contradictions/start.html", {"form": form}, status=400 if form.errors else 200
    )


@login_required
@require_GET
def run_detail(request, run_id):
    try:
        run = selectors.run_get_visible(run_id=run_id, user=request.user)
    except ContradictionRun.DoesNotExist:
        raise Http404("No such contradiction run.") from None
    context = {"page": selectors.arrange(run), "refresh_seconds": REFRESH_SECONDS}
    return render(request, "contradictions/detail.html", context)
