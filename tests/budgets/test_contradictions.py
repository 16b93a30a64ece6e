"""A contradiction run's arbitrations are bounded like a debate's calls: stopped into review at
the limit, keeping the arbitrations paid for, resumed by a re-run without repeating them."""

from __future__ import annotations

import pytest

from budgets.models import Charge, Counter
from contradictions import running, services
from contradictions.models import ContradictionRun, Resolution
from reviews import services as reviews
from tests.contradictions.test_services import many_metrics
from tests.factories import StaffFactory

pytestmark = pytest.mark.django_db


def test_a_run_stops_at_its_call_limit_and_a_rerun_resumes_it(
    settings, django_capture_on_commit_callbacks
):
    settings.BUDGET_DEBATE_MAX_CALLS = 2
    settings.CONTRADICTION_MAX_CONCURRENT_CALLS = 1  # one arbitration at a time
    run = services.contradiction_run_create(reports=many_metrics(5), enqueue=False)
    running.contradiction_run_execute(run_id=run.id)
    run.refresh_from_db()

    assert run.status == ContradictionRun.Status.FAILED
    assert "the call limit of one contradiction run (run_calls) is 2 calls" in run.error
    [item] = run.review_items.all()
    assert (item.reason, item.status) == ("budget_exceeded", "open")
    assert Resolution.objects.filter(contradiction__run=run).count() == 2

    Charge.objects.filter(subject=f"contradiction-run:{run.id}").update(max_calls=10)
    with django_capture_on_commit_callbacks(execute=False):
        reviews.review_rerun(item_id=item.pk, user=StaffFactory(), note="Raised.")
    running.contradiction_run_execute(run_id=run.id)
    run.refresh_from_db()
    assert run.status == ContradictionRun.Status.COMPLETED, run.error
    assert Resolution.objects.filter(contradiction__run=run).count() == 5
    assert Counter.objects.get(key=f"contradiction-run:{run.id}").used_calls == 5
