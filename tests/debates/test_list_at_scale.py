"""The debate list with many stored debates: each documented filter, search and ordering has an
index its query plan uses, whole-table lists are not counted row by row, and their pages and
admin changelists take a fixed number of queries (bench/scale_bench.py measures the times with
100,000 debates)."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from api.pagination import EstimatedCountPaginator
from debates import selectors
from debates.models import Debate
from reviews import selectors as review_selectors
from reviews.models import ReviewItem
from tests.conftest import stored_for_module
from tests.factories import CompletedDebateFactory, UserFactory, with_roles

# Stores 3,000 debates for the module (a slow test: bin/test runs it, --fast leaves it out).
pytestmark = [pytest.mark.django_db, pytest.mark.slow]


@pytest.fixture(scope="module")
def seeded(django_db_setup, django_db_blocker):
    """A few debates of several kinds among 3,000 ordinary ones, and the table's statistics up
    to date, so that PostgreSQL plans as it does for a large table (stored once for the
    module)."""
    with stored_for_module(django_db_blocker):
        staff = with_roles(UserFactory(is_staff=True))
        other = UserFactory()
        Debate.objects.bulk_create(
            Debate(
                query=f"Ordinary question {i}",
                status="completed",
                decision="WARN",
                consensus_type="unanimous",
                cost_usd=0.5,
                created_by=staff,
            )
            for i in range(3000)
        )
        for i, (protocol, decision, override) in enumerate(
            [
                ("s4", "ACT", ""),
                ("s4", "ACT", "REFUSE"),
                ("round_robin", "NO_CONSENSUS", ""),
                ("moderated", "WARN", ""),
            ]
        ):
            CompletedDebateFactory(
                query=f"Is Bitcoin a good reserve, case {i}?",
                protocol=protocol,
                decision=decision,
                decision_override=override,
                consensus_type="split",
                review_status="pending" if override else "",
                cost_usd=i,
                created_by=other if i == 3 else staff,
            )
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE debates_debate")
        yield staff, other


@pytest.fixture
def staff(seeded):
    return seeded[0]


@pytest.fixture
def stored(seeded):
    """The other user, whose one debate is among the seeded ones."""
    return seeded[1]


def plan_of(queryset, *, bitmap_only: bool = False) -> str:
    """The plan with sequential scans priced out: at 3,000 rows PostgreSQL still reads the
    small table whole for some filters, where at 100,000 it reads the index. `bitmap_only`:
    plain index scans priced out too, so only an index that answers the condition itself can
    be used (a GIN index's costs are not known before its first VACUUM)."""
    switches = ["enable_seqscan", *(["enable_indexscan"] if bitmap_only else [])]
    with connection.cursor() as cursor:
        for name in switches:
            cursor.execute(f"SET {name} = off")
    try:
        return queryset.explain()
    finally:
        with connection.cursor() as cursor:
            for name in switches:
                cursor.execute(f"SET {name} = on")


@pytest.mark.parametrize(
    ("filters", "index"),
    [
        ({"decision": "REFUSE"}, "debate_effective_created"),
        ({"machine_decision": "ACT"}, "debate_decision_created"),
        ({"protocol": "moderated"}, "debate_protocol_created"),
        ({"consensus_type": "split"}, "debate_consensus_created"),
        ({"review_status": "pending"}, "debate_review_created"),
        ({"status": "failed"}, "debates_deb_status_a8d5af_idx"),
    ],
)
def test_each_documented_filter_reads_an_index(staff, stored, filters, index):
    """The page as the API reads it (newest first, 21 rows) finds the rows through the index
    on the filtered column, never by reading the table."""
    plan = plan_of(selectors.debate_list(user=staff, **filters)[:21])
    assert re.search(rf"Index (Only )?Scan (Backward )?using ({index})|on ({index})", plan), plan
    assert "Seq Scan on debates_debate" not in plan, plan


def test_the_effective_decision_filter_finds_overrides_and_unreviewed_decisions(staff, stored):
    found = selectors.debate_list(user=staff, decision="REFUSE")
    assert [d.decision_override for d in found] == ["REFUSE"]
    acting = selectors.debate_list(user=staff, decision="ACT")
    assert [d.query for d in acting] == ["Is Bitcoin a good reserve, case 0?"]


@pytest.mark.parametrize("ordering", ["-cost_usd", "cost_usd"])
def test_cost_orderings_walk_the_cost_index(staff, stored, ordering):
    plan = plan_of(selectors.debate_list(user=staff).order_by(ordering)[:21])
    assert "debate_cost" in plan, plan


def test_a_users_own_debates_come_from_the_owner_index(stored):
    plan = plan_of(selectors.debate_list(user=stored)[:21])
    assert re.search(
        r"(Scan|Backward) using (debate_owner_created|debates_debate_created_by_id_)", plan
    ) or re.search(r"on (debate_owner_created|debates_debate_created_by_id_)", plan), plan
    assert "Seq Scan on debates_debate" not in plan, plan


def test_search_reads_the_trigram_index_not_the_table(staff, stored):
    for word in ("nosuchword", "bitcoin"):
        plan = plan_of(selectors.debate_list(user=staff, search=word)[:21], bitmap_only=True)
        assert "Bitmap Index Scan on debate_query_trgm" in plan, plan
        assert "Seq Scan on debates_debate" not in plan, plan
    assert list(selectors.debate_list(user=staff, search="BITCOIN RESERVE")) == []
    assert len(selectors.debate_list(user=staff, search="bitcoin")) == 4


@pytest.fixture
def queued(stored):
    """A review item for each of the 3,000 debates: a split vote, one in 100 with low
    confidence as its second reason; statistics up to date."""
    ReviewItem.objects.bulk_create(
        ReviewItem(
            debate=debate,
            reason="split_vote",
            reasons=["split_vote", "low_confidence"] if i % 100 == 0 else ["split_vote"],
            priority=40 + i % 50,
        )
        for i, debate in enumerate(Debate.objects.filter(query__startswith="Ordinary"))
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE reviews_reviewitem")


def test_the_queue_filtered_by_a_later_reason_reads_the_reasons_index(staff, queued):
    """A reason filter matches an item's first reason or any other it lists: the other
    reasons are found through the GIN index on `reasons`, not by reading the table."""
    for status in ("active", "all"):
        items = review_selectors.queue_items(user=staff, status=status, reason="low_confidence")
        plan = plan_of(items[:50], bitmap_only=True)
        assert "Bitmap Index Scan on reviewitem_reasons_gin" in plan, plan
        assert "Seq Scan on reviews_reviewitem" not in plan, plan
        assert len(items) == 30
        assert all(item.reasons == ["split_vote", "low_confidence"] for item in items)


@pytest.fixture
def estimate_every_table(monkeypatch):
    """Estimates from the first row on, as for a table of 100,000 debates."""
    monkeypatch.setattr(EstimatedCountPaginator, "exact_below", 1)


def counts(ctx) -> list[str]:
    return [q["sql"] for q in ctx.captured_queries if "COUNT(" in q["sql"].upper()]


def test_the_whole_list_page_is_not_counted_row_by_row(client, staff, stored, estimate_every_table):
    client.force_login(staff)
    with CaptureQueriesContext(connection) as ctx:
        page = client.get(reverse("debates:list"))
    assert page.status_code == 200
    assert counts(ctx) == [] and len(ctx.captured_queries) <= 6
    assert "case 0?" in page.content.decode()
    with CaptureQueriesContext(connection) as ctx:
        filtered = client.get(reverse("debates:list"), {"q": "case 3"})
    assert len(counts(ctx)) == 1  # a filtered list is counted exactly
    assert "case 3" in filtered.content.decode() and "case 2" not in filtered.content.decode()


def test_the_estimate_is_the_tables_row_estimate(staff, stored, estimate_every_table):
    paginator = EstimatedCountPaginator(Debate.objects.all(), 2)
    assert paginator.count == Debate.objects.count() == 3004 and paginator.estimated
    exact = EstimatedCountPaginator(Debate.objects.filter(protocol="s4"), 2)
    assert exact.count == 3002 and not exact.estimated


def test_pages_near_the_estimated_end_are_counted_exactly(staff, stored, estimate_every_table):
    """Rows stored since the last ANALYZE are not in the estimate: the last pages count, so
    they stay reachable."""
    Debate.objects.bulk_create(
        Debate(query=f"Newer {i}", status="queued", created_by=staff) for i in range(1000)
    )
    paginator = EstimatedCountPaginator(Debate.objects.all(), 1000)
    assert paginator.num_pages == 4 and paginator.estimated  # 3,004 rows when analysed
    assert paginator.get_page(2).has_next()
    assert paginator.estimated  # page 2 of about 4: still the estimate
    last = paginator.get_page(4)
    assert not paginator.estimated and paginator.count == 4004
    assert last.has_next() and len(paginator.get_page(5).object_list) == 4


def test_the_admin_changelist_neither_counts_the_table_nor_lists_distinct_values(
    admin_client, stored, estimate_every_table, django_assert_max_num_queries
):
    url = reverse("admin:debates_debate_changelist")
    admin_client.get(url)  # the filters' values are cached from here on
    with CaptureQueriesContext(connection) as ctx:
        page = admin_client.get(url)
    assert page.status_code == 200 and "case 2" in page.content.decode()
    sql = [q["sql"].upper() for q in ctx.captured_queries]
    assert counts(ctx) == [], sql
    assert not [q for q in sql if q.startswith("SELECT DISTINCT")], sql
    assert len(sql) <= 5
    text = page.content.decode()
    assert "NO_CONSENSUS" in text and "split" in text  # the filters still list the values


def test_the_admin_searches_questions_and_finds_a_debate_by_its_id(admin_client, stored):
    url = reverse("admin:debates_debate_changelist")
    debate = Debate.objects.get(query__endswith="case 1?")
    by_id = admin_client.get(url, {"q": str(debate.id)}).content.decode()
    assert "case 1?" in by_id and "case 2?" not in by_id
    by_text = admin_client.get(url, {"q": "case 2"}).content.decode()
    assert "case 2?" in by_text and "case 1?" not in by_text


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"page_size": 100},
        {"ordering": "-cost_usd"},
        {"ordering": "cost_usd", "decision": "ACT"},
        {"q": "bitcoin", "status": "completed"},
        {"machine_decision": "NO_CONSENSUS", "protocol": "round_robin"},
        {"consensus_type": "split", "review_status": "pending"},
        {"review_status": "none", "created_after": "2020-01-01"},
    ],
)
def test_every_api_list_query_takes_three_queries(
    admin_client, stored, params, django_assert_max_num_queries
):
    """The session, the user and the page (a cursor page has no count), whatever the filters,
    the ordering and the page size."""
    admin_client.get("/api/v1/debates/")
    with django_assert_max_num_queries(3):
        response = admin_client.get("/api/v1/debates/", params)
    assert response.status_code == 200 and response.json()["results"]
