"""The analytics roll-ups equal what the raw rows add up to: on random debates (seeded, so a
failure repeats) that finish, fail, are reviewed and overridden, run again, lose their schedule
or are deleted, each change made as the service makes it (one statement, the ORM, a cascade);
with debates finishing and being reviewed at the same time from several connections; after a
rebuild; and the real runner's finish counts a debate run by the offline model.

The expected figures are computed here in Python from the debates, calls, statements and
participants as stored, not by the SQL under test."""

from __future__ import annotations

import datetime as dt
import math
import random
import threading
import uuid
from collections import Counter, defaultdict
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.db import connection, connections, transaction
from django.utils import timezone

from analytics import rollups
from analytics.models import DailyAgents, DailyDebates, DailyOutcomes, DebateCount
from debates import running, services
from debates.models import Debate, LLMCall, Participant, Round, Statement
from protocols import PROTOCOLS
from schedules.models import DebateSchedule
from tests.factories import StaffFactory
from tests.support.threads import at_once

MODELS = ("openai/gpt-4o-mini", "anthropic/claude-3-5-haiku", "ollama/llama3")
NAMES = ("Utility Agent", "Accuracy Agent", "Safety Agent", "Critic")
FINISHED = ("completed", "failed")

# --- what the roll-ups should hold, from the raw rows ----------------------------------------


def _band(value: float | None) -> int:
    """0-9 for 0-10 % ... 90-100 % (value in percent), -1 for none."""
    if value is None:
        return -1
    return min(max(math.floor(value), 0), 9)


def _verdict(d: Debate) -> str:
    if d.review_status != "resolved":
        return ""
    verdict = d.decision_override or d.decision
    right, majority_right = d.decision == verdict, d.majority_decision == verdict
    if not d.majority_decision:
        return "right_alone" if right else "wrong_alone"
    if right:
        return "kept_right" if majority_right else "fixed"
    if majority_right:
        return "broke"
    return "kept_wrong" if d.decision == d.majority_decision else "changed_wrong"


def expected(zone: str) -> tuple[dict, dict, dict]:
    """The three roll-up tables as the stored rows make them: {key: counts}, zero rows left out."""
    tz = ZoneInfo(zone)
    debates_rows: dict = defaultdict(Counter)
    outcome_rows: Counter = Counter()
    agent_rows: dict = defaultdict(Counter)
    calls_of: dict = defaultdict(list)
    for call in LLMCall.objects.all():
        calls_of[call.debate_id].append(call)
    names = dict(Participant.objects.values_list("id", "name"))
    revisions: dict = defaultdict(Counter)
    for s in Statement.objects.exclude(previous_decision=""):
        key = (s.debate_id, names[s.participant_id])
        revisions[key]["changed" if s.previous_decision != s.decision else "kept"] += 1
    for d in Debate.objects.filter(status__in=FINISHED):
        day = d.created_at.astimezone(tz).date()
        base = (day, d.protocol, d.schedule_id or 0)
        calls = calls_of[d.pk]
        models = {"": calls}
        for c in calls:
            models.setdefault(c.model or "?", []).append(c)
        completed = d.status == "completed"
        labelled = completed and d.review_status == "resolved"
        verdict = d.decision_override or d.decision
        agents = (d.baselines or {}).get("agents") if labelled else None
        agents = agents if isinstance(agents, list) else []
        own = {
            "finished": 1,
            "completed": int(completed),
            "failed": int(d.status == "failed"),
            "retried": int(d.attempts > 1 or d.recoveries > 0),
            "sent": int(completed and d.review_status != ""),
            "resolved": int(labelled),
            "overridden": int(completed and d.decision_override not in ("", d.decision)),
            "cost_usd": sum((c.cost_usd for c in calls), Decimal(0)),
            "tokens_in": sum(c.tokens_in for c in calls),
            "tokens_out": sum(c.tokens_out for c in calls),
            "debate_agreed": int(labelled and d.decision == verdict),
            "majority_agreed": int(labelled and d.majority_decision == verdict),
            "single_answers": len(agents),
            "single_agreed": sum(a.get("independent") == verdict for a in agents),
        }
        confidence = (d.quality or {}).get("decision_confidence")
        if isinstance(confidence, bool) or not isinstance(confidence, int | float):
            confidence = None
        for model, of_model in models.items():
            row = debates_rows[(*base, model)]
            row.update(own)
            row.update(
                {
                    "calls": len(of_model),
                    "calls_retried": sum(c.attempts > 1 for c in of_model),
                    "calls_failed": sum(c.status == "failed" for c in of_model),
                    "calls_cost_usd": sum((c.cost_usd for c in of_model), Decimal(0)),
                    "calls_tokens_in": sum(c.tokens_in for c in of_model),
                    "calls_tokens_out": sum(c.tokens_out for c in of_model),
                }
            )
            if completed:
                outcome_rows[
                    (
                        *base,
                        model,
                        d.effective_decision,
                        _band(None if d.agreement is None else d.agreement / 10),
                        _verdict(d),
                        _band(None if confidence is None else confidence * 10),
                    )
                ] += 1
            for (debate_id, name), counts in revisions.items():
                if debate_id == d.pk:
                    agent_rows[(*base, model, name)].update(counts)
    return (
        {k: dict(v) for k, v in debates_rows.items()},
        {k: {"n": v} for k, v in outcome_rows.items() if v},
        {k: dict(v) for k, v in agent_rows.items()},
    )


def stored() -> tuple[dict, dict, dict]:
    """The three roll-up tables as stored, in the same shape, zero rows left out."""

    def read(model) -> dict:
        key = list(model._meta.constraints[0].fields)
        counts = [
            f.name for f in model._meta.concrete_fields if not f.primary_key and f.name not in key
        ]
        found = {}
        for row in model.objects.values(*key, *counts):
            values = {c: row[c] for c in counts if row[c]}
            if values:
                found[tuple(row[k] for k in key)] = values
        return found

    return read(DailyDebates), read(DailyOutcomes), read(DailyAgents)


def assert_rollups_match(zone: str = "UTC") -> None:
    want = [
        {k: {c: v for c, v in row.items() if v} for k, row in t.items()} for t in expected(zone)
    ]
    want = [{k: row for k, row in t.items() if row} for t in want]
    got = stored()
    for name, w, g in zip(("debates", "outcomes", "agents"), want, got, strict=True):
        differ = sorted((k for k in g.keys() | w.keys() if g.get(k) != w.get(k)), key=str)
        assert g == w, f"daily {name}: " + "; ".join(
            f"{k}: stored {g.get(k)}, raw rows {w.get(k)}" for k in differ[:5]
        )
    finished = set(
        Debate.objects.filter(status__in=FINISHED).values_list("id", flat=True).iterator()
    )
    assert set(DebateCount.objects.values_list("debate_id", flat=True)) == finished


# --- random debates, changed as the service changes them ---------------------------------------


def make_debate(rng: random.Random, *, schedules: list, now: dt.datetime) -> Debate:
    """A running debate with random participants, calls and statements (as a run leaves them
    before it finishes: not yet counted)."""
    name = rng.choice([n for n, cls in PROTOCOLS.items() if not cls.is_selector])
    debate = Debate.objects.create(
        query=f"random {uuid.uuid4()}",
        protocol=name,
        status=Debate.Status.RUNNING,
        attempts=rng.choice([1, 1, 1, 2, 3]),
        recoveries=rng.choice([0, 0, 0, 1]),
        schedule=rng.choice([None, None, *schedules]),
        started_at=now,
    )
    # Around midnight as often as not, so the day in the roll-ups' time zone matters.
    hours = rng.choice([rng.uniform(0, 96), 24 * rng.randint(0, 3) + rng.uniform(-0.05, 0.05)])
    Debate.objects.filter(pk=debate.pk).update(created_at=now - dt.timedelta(hours=hours))
    rnd = Round.objects.create(debate=debate, number=1, name="One")
    people = []
    for position, person in enumerate(rng.sample(NAMES, rng.randint(1, 3))):
        people.append(
            Participant.objects.create(
                debate=debate,
                position=position,
                name=person,
                slug=f"p{position}",
                role="r",
                system_prompt="",
                temperature=0.2,
            )
        )
    decisions = PROTOCOLS[name].decisions
    for i in range(rng.randint(0, 5)):
        LLMCall.objects.create(
            debate=debate,
            participant=rng.choice(people),
            key=f"k{i}",
            round_number=1,
            step="step",
            status=rng.choice(["done", "done", "failed", "pending"]),
            model=rng.choice(MODELS),
            tokens_in=rng.randint(0, 900),
            tokens_out=rng.randint(0, 300),
            cost_usd=Decimal(rng.randint(0, 5000)) / 1_000_000,
            attempts=rng.choice([1, 1, 2, 3]),
        )
    for p in people:
        if rng.random() < 0.8:
            Statement.objects.create(
                debate=debate,
                round=rnd,
                participant=p,
                kind="revision",
                decision=rng.choice(decisions),
                previous_decision=rng.choice(["", *decisions]),
                confidence=rng.uniform(0, 100),
            )
    return debate


def finish(rng: random.Random, debate: Debate) -> None:
    """Finish it as the runner does (one UPDATE of the row), completed or failed."""
    decisions = PROTOCOLS[debate.protocol].decisions
    if rng.random() < 0.15:
        Debate.objects.filter(pk=debate.pk).update(
            status=Debate.Status.FAILED, error="failed", completed_at=timezone.now()
        )
        return
    decision = rng.choice(decisions)
    confidence = rng.choice([None, rng.random(), 0.7, 1.0, 0.0])
    Debate.objects.filter(pk=debate.pk).update(
        status=Debate.Status.COMPLETED,
        decision=decision,
        majority_decision=rng.choice(["", *decisions]),
        agreement=rng.choice([None, rng.uniform(0, 100), 100.0, 33.3]),
        quality={} if confidence is None else {"decision_confidence": confidence},
        baselines={
            "agents": [
                {"agent": f"p{i}", "independent": rng.choice(decisions), "final": decision}
                for i in range(rng.randint(0, 3))
            ]
        },
        review_status=rng.choice(["", "", "pending"]),
        completed_at=timezone.now(),
    )


def review(rng: random.Random, debate: Debate) -> None:
    """A reviewer's verdict: upheld, or overridden to another decision (as `debates.reviewing`
    writes it: one UPDATE)."""
    decisions = PROTOCOLS[debate.protocol].decisions
    Debate.objects.filter(pk=debate.pk, status="completed").update(
        review_status="resolved",
        decision_override=rng.choice(["", "", *decisions]),
    )


def change(rng: random.Random, debate: Debate) -> None:
    """Something else that happens to finished debates: run again, deleted, reopened."""
    roll = rng.random()
    if roll < 0.3:  # queued again (a re-run), then finished anew with more calls
        Debate.objects.filter(pk=debate.pk).update(status=Debate.Status.QUEUED)
        LLMCall.objects.create(
            debate=debate,
            participant=debate.participants.first(),
            key="again",
            round_number=1,
            step="step",
            status="done",
            model=rng.choice(MODELS),
            tokens_in=7,
            cost_usd=Decimal("0.0007"),
        )
        finish(rng, debate)
    elif roll < 0.5:
        debate.delete()  # the ORM deletes its calls and statements first
    elif roll < 0.7:
        Debate.objects.filter(pk=debate.pk).update(review_status="pending", decision_override="")
    else:
        Debate.objects.filter(pk=debate.pk).update(attempts=9)


@pytest.mark.django_db
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rollups_equal_the_raw_rows_through_every_change(seed):
    rng = random.Random(seed)
    owner = StaffFactory()
    schedules = [
        DebateSchedule.objects.create(
            name=f"s{i}", owner=owner, questions="q", kind="interval", every=1, period="days"
        )
        for i in range(2)
    ]
    now = timezone.now()
    debates = [make_debate(rng, schedules=schedules, now=now) for _ in range(40)]
    assert_rollups_match()  # none finished: nothing counted
    for debate in debates:
        finish(rng, debate)
    assert_rollups_match()
    for debate in rng.sample(debates, 20):
        review(rng, debate)
    assert_rollups_match()
    for debate in rng.sample(debates, 15):
        change(rng, debate)
    schedules[0].delete()  # its debates lose it (SET NULL): counted as from no schedule
    assert_rollups_match()

    before = stored()
    assert rollups.rebuild() == Debate.objects.filter(status__in=FINISHED).count()
    assert stored() == before  # built from scratch, the same figures


@pytest.mark.django_db
def test_rollups_count_days_in_the_time_zone_they_were_built_in(settings):
    rng = random.Random(7)
    debates = [make_debate(rng, schedules=[], now=timezone.now()) for _ in range(30)]
    for debate in debates:
        finish(rng, debate)
    # Built in the server's zone (as the migration leaves it; a test that empties the tables
    # may have removed its state), then the server's zone changes.
    rollups.rebuild()
    assert rollups.problem() == ""
    settings.TIME_ZONE = "Pacific/Auckland"
    assert "time zone" in rollups.problem()
    rollups.rebuild()
    assert rollups.problem() == ""
    assert_rollups_match("Pacific/Auckland")
    review(rng, debates[0])  # counted from now on in Auckland's days
    assert_rollups_match("Pacific/Auckland")


@pytest.mark.django_db
def test_bulk_rows_finished_before_their_calls_are_counted_right_by_a_rebuild():
    rng = random.Random(11)
    debate = make_debate(rng, schedules=[], now=timezone.now())
    finish(rng, debate)
    copy = Debate.objects.get(pk=debate.pk)
    copy.pk, copy.query = uuid.uuid4(), "inserted finished"
    copy.save(force_insert=True)  # counted as it is inserted: no calls yet
    LLMCall.objects.create(
        debate=copy,
        participant=Participant.objects.create(
            debate=copy,
            position=0,
            name="Late",
            slug="late",
            role="r",
            system_prompt="",
            temperature=0.2,
        ),
        key="late",
        round_number=1,
        step="step",
        status="done",
        model=MODELS[0],
        cost_usd=Decimal("0.5"),
    )
    with pytest.raises(AssertionError):
        assert_rollups_match()
    rollups.rebuild()
    assert_rollups_match()


# --- at the same time --------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_debates_finishing_and_reviewed_at_the_same_time_are_all_counted():
    """Four connections finish and review debates of the same days, protocols and models at
    once, each change in its own transaction (as workers and reviewers do): no deadlock, no
    count lost."""
    rng = random.Random(5)
    now = timezone.now()
    debates = [make_debate(rng, schedules=[], now=now) for _ in range(48)]

    def work(part: list[Debate], seed: int) -> None:
        own = random.Random(seed)
        for debate in part:
            with transaction.atomic():
                finish(own, debate)
            with transaction.atomic():
                review(own, debate)
            if own.random() < 0.3:
                with transaction.atomic():
                    change(own, debate)

    at_once(*[lambda i=i: work(debates[i::4], i) for i in range(4)])  # raises what one raised
    assert_rollups_match()


@pytest.mark.django_db(transaction=True)
def test_the_runners_finish_counts_a_debate_in_its_own_statement(default_agents):
    """Two real debates run by the offline model at the same time: each is counted by the
    statement that completes it, with its calls and revisions."""
    user = StaffFactory()
    created = [
        services.debate_create(query=q, protocol=p, created_by=user, enqueue=False)
        for q, p in (("Is Bitcoin a good investment?", "s4"), ("Should I buy gold?", "round_robin"))
    ]
    threads = [
        threading.Thread(
            target=lambda pk: (running.debate_run(debate_id=pk), connections.close_all()),
            args=(d.pk,),
        )
        for d in created
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert Debate.objects.filter(status="completed").count() == 2
    assert_rollups_match()
    totals = DailyDebates.objects.filter(model="").values_list("calls", flat=True)
    assert sum(totals) == LLMCall.objects.count() > 0
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM analytics_debatecount")
        assert cursor.fetchone()[0] == 2
