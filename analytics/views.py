"""The analytics page for staff, and each of its charts' numbers as CSV."""

from __future__ import annotations

import csv

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from analytics.charts import BY_ID, CHARTS
from analytics.forms import AnalyticsFilterForm


def _staff_only(request):
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if not request.user.is_staff:
        raise PermissionDenied("The analytics page is for staff.")
    return None


@require_GET
def analytics(request):
    if (refused := _staff_only(request)) is not None:
        return refused
    form = AnalyticsFilterForm(request.GET or None)
    if form.is_bound and not form.is_valid():
        return render(request, "analytics/page.html", {"form": form, "charts": []}, status=400)
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
        {"form": form, "filters": filters, "charts": charts, "known_models": models},
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
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    name = f"{chart_id}_{filters.since.isoformat()}_{filters.until.isoformat()}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    writer = csv.writer(response)
    writer.writerows(spec.csv_rows())
    return response
