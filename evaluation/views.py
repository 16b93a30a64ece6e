"""The evaluation pages for staff: the runs, one run's report, two runs compared, and the form
that starts a run (docs/analysts/evaluation.md, "The evaluation pages").

Reading needs `evaluation.view_evaluationrun` (Reviewer, Operator); starting a run needs
`evaluation.add_evaluationrun` (Operator). Every figure is computed from the run's stored items
and their debates (`runs.run_report`), the same figures as the command's reports."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from evaluation import driving, runs, selectors
from evaluation.accuracy import categories_of, compare, method_rows
from evaluation.forms import EvaluationStartForm
from evaluation.models import EvaluationRun
from evaluation.report import safety_tables

VIEW = "evaluation.view_evaluationrun"
START = "evaluation.add_evaluationrun"
PAGE_SIZE = 20
#: How often the page of a running run reloads itself, in seconds.
REFRESH_SECONDS = 5


REFUSALS = {
    VIEW: "The evaluation pages are for Reviewers and Operators.",
    START: "Only Operators start evaluation runs.",
}


def _refused(request, permission: str):
    """A login redirect for anonymous users, a 403 without `permission`, else None."""
    if not request.user.is_authenticated:
        back = request.get_full_path() if request.method == "GET" else reverse("evaluation:list")
        return redirect_to_login(back)
    if not request.user.has_perm(permission):
        raise PermissionDenied(REFUSALS[permission])
    return None


def _problem(request, status: int, title: str, message: str):
    context = {"title": title, "message": message}
    return render(request, "evaluation/problem.html", context, status=status)


def _list_page(request, form, status: int = 200):
    page = Paginator(selectors.run_list(), PAGE_SIZE).get_page(request.GET.get("page"))
    for run in page.object_list:
        figures = run.report or {}
        run.methods = (
            method_rows(figures, with_baselines=run.with_baselines, categories=[])
            if figures.get("accuracy")
            else []
        )
        run.cost_usd = figures.get("cost_usd")
    return render(request, "evaluation/list.html", {"page": page, "form": form}, status=status)


@require_GET
def run_list(request):
    if (refused := _refused(request, VIEW)) is not None:
        return refused
    form = EvaluationStartForm() if request.user.has_perm(START) else None
    return _list_page(request, form)


@require_POST
def run_start(request):
    if (refused := _refused(request, START)) is not None:
        return refused
    form = EvaluationStartForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            run = driving.run_launch(
                set_name=data["set"],
                protocol=data["protocol"],
                model=data["model"].strip(),
                with_baselines=data["baselines"],
                actor=request.user,
            )
        except ValidationError as exc:
            for name, problems in exc.message_dict.items():
                form.add_error(name if name in form.fields else None, problems)
        else:
            messages.success(
                request, f"Started: {run.items.count()} questions are being sent to the workers."
            )
            return redirect("evaluation:detail", run_id=run.id)
    return _list_page(request, form, status=400)


def _matrix(figures: dict) -> dict:
    confusion = figures["confusion"]
    rows = [
        {
            "expected": expected,
            "n": sum(counts.values()),
            "cells": [
                {"label": label, "count": counts[label], "right": label == expected}
                for label in confusion["labels"]
            ],
        }
        for expected, counts in confusion["counts"].items()
    ]
    return {"labels": confusion["labels"], "rows": rows}


@require_GET
def run_detail(request, run_id):
    if (refused := _refused(request, VIEW)) is not None:
        return refused
    run = EvaluationRun.objects.filter(id=run_id).first()
    if run is None:
        return _problem(request, 404, "No such run", f"There is no evaluation run {run_id}.")
    report = runs.run_report(run)
    figures, items = report["figures"], report["items"]
    context = {
        "run": run,
        "meta": report["run"],
        "figures": figures,
        "items": items,
        "categories": categories_of(figures),
        "rows": method_rows(figures, with_baselines=run.with_baselines),
        "matrix": _matrix(figures),
        "safety": safety_tables(report),
        "progress": {
            "total": len(items),
            "asked": sum(1 for i in items if i["debate_id"]),
            "finished": sum(1 for i in items if i["decision"]),
        },
        "refresh_seconds": REFRESH_SECONDS if run.status == EvaluationRun.Status.RUNNING else None,
        "others": selectors.run_choices(exclude=run.id),
    }
    return render(request, "evaluation/detail.html", context)


def _run_id(value: str | None, name: str):
    """The UUID in `value`, or the message for a 400."""
    if not value:
        return None, f"Give two runs to compare: ?a=<run id>&b=<run id> ({name} is missing)."
    try:
        return uuid.UUID(value), None
    except ValueError:
        return None, f"{name}={value[:60]!r} is not a run id (a UUID, as in the run's address)."


@require_GET
def run_compare(request):
    if (refused := _refused(request, VIEW)) is not None:
        return refused
    ids = {}
    for name in ("a", "b"):
        ids[name], problem = _run_id(request.GET.get(name), name)
        if problem:
            return _problem(request, 400, "Cannot compare", problem)
    found = EvaluationRun.objects.in_bulk([ids["a"], ids["b"]])
    missing = [f"{name}={ids[name]}" for name in ("a", "b") if ids[name] not in found]
    if missing:
        return _problem(
            request, 404, "No such run", f"There is no evaluation run {' nor '.join(missing)}."
        )
    a, b = found[ids["a"]], found[ids["b"]]
    figures_a, figures_b = runs.run_report(a)["figures"], runs.run_report(b)["figures"]
    context = {
        "sides": [("A", a, figures_a), ("B", b, figures_b)],
        "comparison": compare(
            figures_a, figures_b, a_baselines=a.with_baselines, b_baselines=b.with_baselines
        ),
    }
    return render(request, "evaluation/compare.html", context)
