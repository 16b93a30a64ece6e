"""A debate that failed because of its model is re-run with another one: from the review page
and over the API. A model off the allow-list is refused there too, and nothing changes."""

from __future__ import annotations

from unittest import mock

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.services import token_issue
from debates import running
from debates import services as debate_services
from debates.models import Debate
from reviews.models import ReviewItem
from tests.support.fake_openai import Reply

GOOD = "offline/debater-model"


@pytest.fixture
def failed_on_model(default_agents, fake_openai, settings, staff) -> ReviewItem:
    """The debate's model (the fake provider) rejects every call: the debate fails."""
    settings.DEBATE_ALLOWED_MODELS = [*settings.DEBATE_ALLOWED_MODELS, "offline/*"]
    fake_openai.default = Reply.error(404, "The model does not exist.")
    debate = debate_services.debate_create(
        query="Is it raining?",
        created_by=staff,
        enqueue=False,
        options={"model": fake_openai.model},
    )
    running.debate_run(debate_id=debate.id)
    debate.refresh_from_db()
    assert debate.status == Debate.Status.FAILED
    return debate.review_items.get()


def test_a_rerun_from_the_page_with_another_model_completes(
    client, staff, failed_on_model, fake_openai, django_capture_on_commit_callbacks
):
    client.force_login(staff)
    url = reverse("reviews:rerun", args=[failed_on_model.pk])
    page = client.get(reverse("reviews:item", args=[failed_on_model.pk])).content.decode()
    assert f"now {fake_openai.model}" in page

    refused = client.post(url, {"rerun-model": "nonexistent/foo-model"})
    assert refused.status_code == 400
    assert "&#x27;nonexistent/foo-model&#x27; is not an allowed model" in refused.content.decode()
    debate = Debate.objects.get(pk=failed_on_model.debate_id)
    assert debate.status == Debate.Status.FAILED
    assert debate.options["model"] == fake_openai.model

    with (
        mock.patch("debates.tasks.run_debate.delay") as enqueue,
        django_capture_on_commit_callbacks(execute=True),
    ):
        client.post(url, {"rerun-model": GOOD, "rerun-note": "Wrong model."})
    enqueue.assert_called_once_with(str(debate.id))
    debate.refresh_from_db()
    assert debate.options["model"] == GOOD
    assert set(debate.participants.values_list("model_name", flat=True)) == {GOOD}
    failed_on_model.refresh_from_db()
    assert failed_on_model.verdict == "rerun"
    assert f"model changed from {fake_openai.model} to {GOOD}" in failed_on_model.note

    running.debate_run(debate_id=debate.id)  # what the worker would do
    debate.refresh_from_db()
    assert debate.status == Debate.Status.COMPLETED and debate.decision
    assert not ReviewItem.objects.filter(
        debate=debate, reason="debate_failed", status="open"
    ).exists()


def test_a_rerun_over_the_api_changes_the_model(
    staff, failed_on_model, django_capture_on_commit_callbacks
):
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {token_issue(user=staff, name='t')[1]}")
    url = f"/api/v1/reviews/{failed_on_model.pk}/rerun/"
    bad = api.post(url, {"model": "nonexistent/foo-model"}, format="json")
    assert bad.status_code == 400 and "not an allowed model" in str(bad.json()["model"])
    with (
        mock.patch("debates.tasks.run_debate.delay"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        done = api.post(url, {"model": GOOD}, format="json")
    assert done.status_code == 200
    assert Debate.objects.get(pk=failed_on_model.debate_id).options["model"] == GOOD
