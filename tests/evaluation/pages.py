"""Evaluation runs made to order for the page tests: each question's debate stored as finished
with the decision, majority vote, single agents, cost and tokens given; and readers of the
figures the pages show."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal

from django.test import Client
from django.utils import timezone

from accounts.roles import OPERATOR, REVIEWER
from debates.models import Debate
from evaluation import runs
from evaluation.models import EvaluationRun
from tests.factories import CompletedDebateFactory, UserFactory, with_roles


@dataclass(frozen=True)
class Q:
    """A question, its label and what happened: `decided` None = not asked, "" = asked and
    still running, FAILED = the debate failed."""

    question: str
    expected: str
    category: str
    decided: str | None
    majority: str = ""
    agents: dict[str, str] = field(default_factory=dict)
    cost: str = "0.001000"
    tokens: int = 100


def make_run(questions, *, protocol="s4", baselines=True, complete=True, model=""):
    text = "\n".join(
        json.dumps({"question": q.question, "expected": q.expected, "category": q.category})
        for q in questions
    )
    run = runs.run_start(
        set_name="pages.jsonl", text=text, protocol=protocol, model=model, with_baselines=baselines
    )
    for item, q in zip(run.items.order_by("line"), questions, strict=True):
        if q.decided is None:
            continue
        finished = q.decided not in ("",)
        failed = q.decided == "FAILED"
        started = timezone.now() - timedelta(seconds=2)
        debate = CompletedDebateFactory(
            query=q.question,
            protocol=protocol,
            status=(
                Debate.Status.FAILED
                if failed
                else Debate.Status.COMPLETED
                if finished
                else Debate.Status.RUNNING
            ),
            decision="" if failed or not finished else q.decided,
            majority_decision=q.majority,
            baselines={"single_agent": q.agents} if q.agents else {},
            cost_usd=Decimal(q.cost),
            tokens_in=q.tokens // 2,
            tokens_out=q.tokens - q.tokens // 2,
            completed_at=started + timedelta(seconds=1.5) if finished else None,
        )
        Debate.objects.filter(pk=debate.pk).update(started_at=started)
        item.debate = debate
        item.asked_at = timezone.now()
        item.save(update_fields=["debate", "asked_at"])
    if complete:
        report = runs.run_report(run)
        runs.run_mark(
            run=run, status=EvaluationRun.Status.COMPLETED, elapsed=1.94, report=report["figures"]
        )
    return run


def client_as(role: str | None) -> Client:
    """A client signed in as `role`: None anonymous, "user" no role, else Reviewer/Operator."""
    client = Client()
    if role is None:
        return client
    user = UserFactory(is_staff=role != "user")
    if role in (REVIEWER, OPERATOR):
        with_roles(user, role)
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


ROW = re.compile(r'<tr data-method="(?P<key>[^"]+)">(?P<body>.*?)</tr>', re.S)
SHARE = re.compile(
    r'<span class="share" data-agreed="(\d+)" data-n="(\d+)">'
    r'(?:<span class="rate">([^<]*)</span> <span class="n">\(\d+/\d+\)</span> '
    r'<span class="ci">95% CI ([^<]*)</span>)?'
)


def shares_by_method(html: str, table: str) -> dict[str, list[tuple[int, int, str, str]]]:
    """Each method row of the table `data-testid=table`: its (agreed, n, rate, interval) cells,
    All first, then the categories."""
    start = html.index(f'data-testid="{table}"')
    body = html[start : html.index("</table>", start)]
    return {
        m["key"]: [
            (int(a), int(n), rate or "", ci or "") for a, n, rate, ci in SHARE.findall(m["body"])
        ]
        for m in ROW.finditer(body)
    }


def table_headers(html: str, table: str) -> list[str]:
    start = html.index(f'data-testid="{table}"')
    head = html[start : html.index("</thead>", start)]
    return re.findall(r'<th scope="col">([^<]*)</th>', head)
