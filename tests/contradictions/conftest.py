"""Fixtures for contradiction runs: the five worked cases as reports, the source ranking,
and a scripted arbitrator for the LLM boundary."""

from __future__ import annotations

import asyncio
import threading
from decimal import Decimal

import pytest

from agents import gateway
from contradictions.inputs import parse_payload
from contradictions.models import SourceAuthority
from tests.factories import StaffFactory, UserFactory

UNEMPLOYMENT = "Qatar unemployment rate"


def report(agent: str, confidence: float, *findings: dict) -> dict:
    return {"agent": agent, "confidence": confidence, "findings": list(findings)}


def claim(
    value,
    source: str,
    period: str,
    *,
    metric: str = UNEMPLOYMENT,
    unit: str = "%",
    confidence: float | None = None,
    citation: str | None = None,
    **extra,
) -> dict:
    data = {
        "metric": metric,
        "value": value,
        "unit": unit,
        "source": source,
        "period": period,
        "citation": citation
        if citation is not None
        else f"[Per extraction: '{value}{unit}' from {source} {period}]",
        **extra,
    }
    if confidence is not None:
        data["confidence"] = confidence
    return data


# The five worked cases (docs/concepts/contradictions.md#worked-cases).
SCENARIOS: dict[str, list[dict]] = {
    # 3 agreeing agents: no contradiction, arbitration skipped.
    "no_contradictions": [
        report("LabourEconomist", 0.9, claim(0.10, "GCC-STAT", "Q1-2024")),
        report(
            "NationalStrategy",
            0.85,
            claim(0.10, "GCC-STAT", "Q1-2024", metric="qatar_unemployment_rate"),
        ),
        report(
            "SkillsAnalyst",
            0.8,
            claim(0.102, "GCC-STAT", "Q1-2024", metric="Qatar Unemployment-Rate", unit="percent"),
        ),
    ],
    # 2 agents, same metric, different values, same source: the higher confidence wins.
    "simple": [
        report("LabourEconomist", 0.9, claim(0.10, "GCC-STAT", "2024")),
        report("NationalStrategy", 0.6, claim(0.12, "GCC-STAT", "2024")),
    ],
    # Different sources for the same period: the authoritative source wins.
    "source_conflict": [
        report("LabourEconomist", 0.8, claim(0.10, "GCC-STAT", "2024")),
        report("NationalStrategy", 0.9, claim(0.12, "World Bank", "2024")),
    ],
    # Different periods: both valid, with context.
    "both_valid": [
        report("LabourEconomist", 0.9, claim(0.10, "GCC-STAT", "Q1-2024")),
        report("NationalStrategy", 0.85, claim(0.12, "World Bank", "2024")),
    ],
    # 3 agents, 3 values: one multi-way case, resolved by source authority and confidence.
    "multi_way": [
        report("LabourEconomist", 0.85, claim(0.10, "GCC-STAT", "2024")),
        report("NationalStrategy", 0.9, claim(0.12, "World Bank", "2024")),
        report("SkillsAnalyst", 0.7, claim(0.15, "Ministry blog", "2024")),
    ],
}


def reports_of(name: str):
    return parse_payload(SCENARIOS[name])["reports"]


@pytest.fixture
def sources(db):
    """The default ranking, GCC-STAT > World Bank > others (the data migration's rows may have
    been flushed by a transactional test)."""
    SourceAuthority.objects.update_or_create(
        name="GCC-STAT", defaults={"rank": 1, "aliases": ["GCC Statistical Center"]}
    )
    SourceAuthority.objects.update_or_create(
        name="World Bank", defaults={"rank": 2, "aliases": ["WDI"]}
    )
    return list(SourceAuthority.objects.all())


@pytest.fixture
def user(db):
    return UserFactory(username="ana")


@pytest.fixture
def other_user(db):
    return UserFactory(username="ben")


@pytest.fixture
def staff_user(db):
    return StaffFactory(username="sam")


class ScriptedArbitrator:
    """Stands in for `gateway.acomplete`: answers with `reply(messages)` (default: the offline
    model's own answer), counts the calls and how many were in flight at once. With a
    `barrier` (an `asyncio.Barrier`), each call waits there, for at most 20 s. Each reply is
    billed `cost` (default: what the offline model costs, nothing)."""

    def __init__(
        self,
        reply=None,
        *,
        barrier: asyncio.Barrier | None = None,
        fail_after: int | None = None,
        exc: BaseException | None = None,
        cost: Decimal = Decimal(0),
    ):
        self.reply = reply
        self.cost = cost
        self.barrier = barrier
        self.fail_after = fail_after
        self.exc = exc
        self.calls: list[list[dict]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()

    async def __call__(self, *, model, messages, temperature=0.2, **kwargs):
        with self.lock:
            if self.fail_after is not None and len(self.calls) >= self.fail_after:
                raise self.exc
            self.calls.append(messages)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.barrier is not None:
                async with asyncio.timeout(20):
                    await self.barrier.wait()
            if self.reply is None:
                from agents.offline import reply_to

                content = reply_to(messages)
            else:
                content = self.reply(messages)
            return gateway.LLMResponse(model, content, 100, 40, self.cost, 5, 1)
        finally:
            with self.lock:
                self.in_flight -= 1


class WorkerDied(BaseException):
    """Stands for a worker killed mid-run (not an Exception: nothing catches it)."""
