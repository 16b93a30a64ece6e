"""The analytics page for staff, and each of its charts' numbers as CSV."""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from analytics import rollups
from analytics.charts import BY_ID, CHARTS
from analytics.forms import AnalyticsFilterForm, relative_ranges
from api import csv_export
from reviews.agreement import agreement_report

#: Figures across every user's debates (docs: Roles): the Reviewer and Operator roles.
FIGURES = "debates.view_figures"


def _staff_only(request):
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if not request.user.has_perm(FIGURES):
        raise PermissionDenied("The analytics page needs the permission to read figures.")
    return None


@require_GET
def analytics(request):
    if (refused := _staff_only(request)) is not None:
        return refused
    form = AnalyticsFilterForm(request.GET or None)
    if form.is_bound and not form.is_valid():
        context = {"form": form, "charts": [], "ranges": relative_ranges(request.GET, None)}
        return render(request, "analytics/page.html", context, status=400)
    if not form.is_bound:
        form = AnalyticsFilterForm({})
        form.is_valid()
    filters = form.filters()
    query = request.GET.urlencode()
    memo: dict = {}
    charts = [
        (chart.build(filters, memo), reverse("analytics:csv", args=[chart.id]) + f"?{query}")
        for chart in CHARTS
    ]
    models = next((c.labels for c, _ in charts if c.id == "cost-by-model"), [])
    return render(
        request,
        "analytics/page.html",
        {
            "form": form,
            "filters": filters,
            "ranges": relative_ranges(request.GET, filters),
            "charts": charts,
            "known_models": models,
            "agreement": agreement_report(),
            "rollup_problem": rollups.problem(),
        },
    )


@require_GET
def analytics_csv(request, chart_id: str):
    if (refused := _staff_only(request)) is not None:
        return refused
    chart = BY_ID.get(chart_id)
    if chart is None:
        raise Http404("No such chart.")
    form = AnalyticsFilterForm(request.GET or {})
    if not form.is_valid():
        problems = "; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items())
        return HttpResponse(
            f"Bad filters: {problems}\n", status=400, content_type="text/plain; charset=utf-8"
        )
    filters = form.filters()
    spec = chart.build(filters)
    name = f"{chart_id}_{filters.since.isoformat()}_{filters.until.isoformat()}.csv"
    return csv_export.rows_response(spec.csv_rows(), filename=name)
