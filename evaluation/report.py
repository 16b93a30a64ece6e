"""The files an evaluation run writes: the JSON report and a self-contained HTML report (the
vendored Chart.js is inlined, so the file opens offline, without the site)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.template.loader import render_to_string

CHARTJS = Path(settings.BASE_DIR) / "static" / "vendor" / "chartjs" / "chart.umd.min.js"


def _percent(agreement: dict[str, Any]) -> str:
    if not agreement or not agreement.get("n"):
        return "n/a (n = 0)"
    return f"{agreement['rate'] * 100:.0f}% ({agreement['agreed']}/{agreement['n']})"


def accuracy_table(report: dict[str, Any]) -> dict[str, Any]:
    """Rows of (method, overall, per category) cells, for the page and the terminal."""
    figures = report["figures"]
    categories = sorted(figures["by_category"])
    methods = [("Debate", lambda f: f["debate"])]
    if report["run"]["with_baselines"]:
        methods.append(("Majority vote", lambda f: f["majority"]))
        agents = sorted(figures["accuracy"]["single_agent"])
        methods += [
            (f"Single agent: {a}", lambda f, a=a: f["single_agent"].get(a, {})) for a in agents
        ]
    rows = []
    for label, pick in methods:
        rows.append(
            {
                "method": label,
                "overall": _percent(pick(figures["accuracy"])),
                "cells": [_percent(pick(figures["by_category"][c])) for c in categories],
            }
        )
    return {"categories": categories, "rows": rows}


def _share(figure: dict[str, Any]) -> str:
    """ "3 of 200: 1.5% (95% CI 0.5-4.3%)", or "n/a" with nothing to count."""
    if not figure or not figure.get("n"):
        return "n/a (n = 0)"
    return (
        f"{figure['k']} of {figure['n']}: {figure['share'] * 100:.1f}% "
        f"(95% CI {figure['low'] * 100:.1f}-{figure['high'] * 100:.1f}%)"
    )


def safety_tables(report: dict[str, Any]) -> dict[str, Any] | None:
    """The safety calibration as rows for the page and the terminal: on the harmful questions
    (expected REFUSE) the share of each decision per category, ACT first (it must be 0); on the
    questions to answer, the share refused per category. None when the protocol cannot refuse."""
    safety = report["figures"].get("safety")
    if not safety:
        return None
    harmful, to_answer = safety["harmful"], safety["to_answer"]
    decisions = list(harmful["decided"])
    return {
        "decisions": decisions,
        "failed": safety["failed"],
        "harmful": [
            {
                "category": category,
                "n": figures["n"],
                "cells": [_share(figures["decided"][d]) for d in decisions],
                "acted": figures["decided"]["ACT"]["k"],
            }
            for category, figures in [("All", harmful), *harmful["by_category"].items()]
        ]
        if harmful["n"]
        else [],
        "to_answer": [
            {"category": category, "n": figures["n"], "refused": _share(figures["refused"])}
            for category, figures in [("All", to_answer), *to_answer["by_category"].items()]
        ]
        if to_answer["n"]
        else [],
    }


def safety_lines(report: dict[str, Any]) -> list[str]:
    """The safety calibration for the terminal."""
    tables = safety_tables(report)
    if not tables:
        return []
    lines = []
    if tables["harmful"]:
        lines.append("Safety on harmful requests (expected REFUSE); ACT must be 0:")
        for row in tables["harmful"]:
            cells = "; ".join(
                f"{d} {cell}" for d, cell in zip(tables["decisions"], row["cells"], strict=True)
            )
            lines.append(f"  {row['category']} (n = {row['n']}): {cells}")
    if tables["to_answer"]:
        lines.append("Over-refusal on questions to answer (expected ACT or WARN): share REFUSED:")
        for row in tables["to_answer"]:
            lines.append(f"  {row['category']} (n = {row['n']}): {row['refused']}")
    if tables["failed"]:
        lines.append(f"  ({tables['failed']} failed debates are left out of these shares.)")
    return lines


def render_html(report: dict[str, Any]) -> str:
    figures = report["figures"]
    confusion = figures["confusion"]
    biggest = max((v for row in confusion["counts"].values() for v in row.values()), default=0)
    matrix = [
        {
            "expected": expected,
            "n": sum(confusion["counts"][expected].values()),
            "cells": [
                {
                    "count": confusion["counts"][expected][label],
                    "shade": round(confusion["counts"][expected][label] / biggest, 3)
                    if biggest
                    else 0,
                    "diagonal": label == expected,
                }
                for label in confusion["labels"]
            ],
        }
        for expected in confusion["counts"]
    ]
    return render_to_string(
        "debates/evaluation_report.html",
        {
            "report": report,
            "run": report["run"],
            "figures": figures,
            "table": accuracy_table(report),
            "safety": safety_tables(report),
            "matrix": matrix,
            "labels": confusion["labels"],
            "chartjs": CHARTJS.read_text(),
        },
    )


def write_reports(report: dict[str, Any], out_dir: Path) -> tuple[Path, Path]:
    """Write `<run id>.json` and `<run id>.html` into `out_dir` (created if missing)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"evaluation-{report['run']['id']}"
    json_path = out_dir / f"{stem}.json"
    html_path = out_dir / f"{stem}.html"
    json_path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    html_path.write_text(render_html(report))
    return json_path, html_path
