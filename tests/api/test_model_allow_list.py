"""Models a user may choose come from the operator's allow-list: anything else is a 400 at creation
that names the allowed ones, through the API (with a token) and the New debate form, and nothing
is stored."""

from __future__ import annotations

from html import unescape

import pytest
from django.urls import reverse

from agents.models import Agent
from debates.models import Debate, Participant
from tests.debates.test_views import text_of
from tests.support.fake_openai import Reply

DEBATES = "/api/v1/debates/"
AGENTS = "/api/v1/agents/"
pytestmark = pytest.mark.usefixtures("default_agents")
ALLOWED = (
    "Allowed: arbitration, cheap, moderation, reasoning, offline/heuristic-demo, "
    "openai/gpt-4o-mini."
)


@pytest.fixture(autouse=True)
def allow_list(settings):
    settings.DEBATE_MODEL_GROUPS = {}
    settings.DEBATE_ALLOWED_MODELS = ["openai/gpt-4o-mini"]


@pytest.mark.parametrize(
    "model",
    ["ollama/llama3", "nonexistent/foo-model", "openai/gpt-4o-mini-2024", "openai/gpt-4o-mini\x00"],
)
def test_a_model_off_the_list_is_a_400_naming_the_allowed_ones(api, model):
    response = api.post(
        DEBATES, {"question": "Is it raining?", "options": {"model": model}}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {"options": [f"model: {model!r} is not an allowed model. {ALLOWED}"]}
    assert Debate.objects.count() == 0 and Participant.objects.count() == 0


@pytest.mark.parametrize("model", ["openai/gpt-4o-mini", "cheap", "offline/heuristic-demo"])
def test_a_model_on_the_list_is_accepted_and_pinned(api, model):
    response = api.post(
        DEBATES, {"question": "Is it raining?", "options": {"model": model}}, format="json"
    )
    assert response.status_code == 202, response.json()
    debate = Debate.objects.get()
    assert debate.options["model"] == model
    assert set(debate.participants.values_list("model_name", flat=True)) == {model}


def test_without_a_model_the_participants_are_routed(api):
    assert api.post(DEBATES, {"question": "Is it raining?"}, format="json").status_code == 202
    assert set(Participant.objects.values_list("model_name", flat=True)) == {""}


def test_staff_cannot_give_an_agent_a_model_off_the_list(staff_api):
    response = staff_api.patch(f"{AGENTS}utility/", {"model_name": "ollama/llama3"}, format="json")
    assert response.status_code == 400
    assert response.json() == {
        "model_name": [f"'ollama/llama3' is not an allowed model. {ALLOWED}"]
    }
    assert Agent.objects.get(slug="utility").model_name == ""
    allowed = staff_api.patch(f"{AGENTS}utility/", {"model_name": "moderation"}, format="json")
    assert allowed.status_code == 200, allowed.json()
    assert Agent.objects.get(slug="utility").model_name == "moderation"


def test_the_new_debate_form_refuses_a_model_off_the_list(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("nora", password="a-long-pass"))
    response = client.post(
        reverse("debates:start"),
        {
            "question": "Should every website use HTTPS?",
            "protocol": "moderated",
            "moderated-model": "ollama/llama3",
        },
    )
    assert response.status_code == 400
    assert f"model: 'ollama/llama3' is not an allowed model. {ALLOWED}" in unescape(
        text_of(response)
    )
    assert 'id="id_moderated-model_error"' in response.content.decode()  # beside its box
    assert Debate.objects.count() == 0
    accepted = client.post(
        reverse("debates:start"),
        {
            "question": "Should every website use HTTPS?",
            "protocol": "moderated",
            "moderated-model": "openai/gpt-4o-mini",
        },
    )
    assert accepted.status_code == 302
    assert Debate.objects.get().options["model"] == "openai/gpt-4o-mini"


# --- provider errors: a summary for users, the details for staff ------------------------------


def test_a_provider_error_is_summarised_for_its_owner_and_whole_for_staff(
    api,
    staff_api,
    user,
    fake_openai,
    client,
):
    from debates import running, services

    fake_openai.default = Reply.error(
        401, "Incorrect API key provided: sk-fake***. Internal host 10.0.0.5:8443."
    )
    debate = services.debate_create(
        query="Is it raining?", created_by=user, enqueue=False, options={"model": fake_openai.model}
    )
    running.debate_run(debate_id=debate.id)  # the real gateway, in process
    summary = (
        "The language model failed (permanent): openai/fake-model: the provider refused "
        "the credentials."
    )

    shown = api.get(f"{DEBATES}{debate.id}/").json()["error"]
    assert shown == summary
    whole = staff_api.get(f"{DEBATES}{debate.id}/").json()["error"]
    assert whole.startswith(summary + "\nDetails (staff only): ")
    assert "Internal host 10.0.0.5:8443" in whole

    client.force_login(user)
    page = unescape(text_of(client.get(reverse("debates:detail", args=[debate.id]))))
    assert summary in page and "10.0.0.5" not in page and "Incorrect API key" not in page
