"""Routing: which group a call goes to, litellm's Router falling back along deployments (real HTTP
to fake OpenAI-compatible servers), the deployment that answered recorded, and the allow-list."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured, ValidationError

from agents import gateway, routing
from agents.errors import LLMError
from agents.offline import reply_to
from tests.support.fake_openai import FakeOpenAI, Reply

MESSAGES = [
    {"role": "system", "content": "You are the Utility Agent."},
    {"role": "user", "content": "Is the sky blue?"},
]


@pytest.fixture
def second_server():
    with FakeOpenAI() as server:
        yield server


def _deployment(server: FakeOpenAI, name: str) -> dict:
    return {"model": server.model, "api_base": server.api_base, "api_key": "sk-fake", "name": name}


# --- the route table ------------------------------------------------------------------------


def test_default_routes_send_each_step_to_its_group(settings):
    settings.DEBATE_MODEL_ROUTES = {}
    config = routing.config()
    assert config.route("moderation", "moderator") == "moderation"
    assert config.route("synthesis", "refiner") == "moderation"
    assert config.route("challenge", "safety") == "cheap"
    assert config.route("arbitration", "arbitrator") == "arbitration"
    for step, role in [
        ("analysis", "utility"),
        ("revision", "safety"),
        ("argument", "proponent"),
        ("turn", "valuation"),
    ]:
        assert config.route(step, role) == "reasoning"


def test_the_most_specific_route_wins(settings):
    settings.DEBATE_MODEL_GROUPS = {"strong": "offline/strong"}
    settings.DEBATE_MODEL_ROUTES = {
        "*:safety": "strong",
        "challenge:safety": "moderation",
        "argument:*": "cheap",
    }
    config = routing.config()
    assert config.route("challenge", "safety") == "moderation"  # step:role
    assert config.route("argument", "safety") == "cheap"  # step:* before *:role
    assert config.route("analysis", "safety") == "strong"  # *:role
    assert config.route("analysis", "utility") == "reasoning"  # *:*


def test_unconfigured_groups_are_the_default_model_so_nothing_needs_a_key(settings):
    settings.DEBATE_MODEL_GROUPS = {}
    config = routing.config()
    assert {name: [d.model for d in deps] for name, deps in config.groups.items()} == {
        g: [settings.DEBATE_DEFAULT_MODEL] for g in routing.GROUPS
    }
    response = gateway.complete(messages=MESSAGES, step="analysis", role="utility")
    assert response.model == "offline/heuristic-demo"
    assert response.deployment == "reasoning-1"
    assert response.content == reply_to(MESSAGES)


@pytest.mark.parametrize(
    ("setting", "value", "message"),
    [
        ("DEBATE_MODEL_ROUTES", {"analysis:*": "nosuch"}, "must map 'step:role'"),
        ("DEBATE_MODEL_ROUTES", {"analysis": "cheap"}, "must map 'step:role'"),
        ("DEBATE_MODEL_FALLBACKS", {"reasoning": ["nosuch"]}, "unknown group(s): nosuch"),
        ("DEBATE_MODEL_GROUPS", {"cheap": []}, "non-empty list"),
        ("DEBATE_MODEL_GROUPS", {"cheap": [{"api_base": "http://x"}]}, "entry 1 has no 'model'"),
        (
            "DEBATE_MODEL_GROUPS",
            {"cheap": [{"model": "a/b", "name": "reasoning-1"}]},
            "Two deployments are named 'reasoning-1'",
        ),
    ],
)
def test_a_bad_configuration_is_refused_saying_what_is_wrong(settings, setting, value, message):
    setattr(settings, setting, value)
    with pytest.raises(ImproperlyConfigured, match=message.replace("(", r"\(").replace(")", r"\)")):
        routing.config()


# --- litellm's Router: fallbacks and the deployment that answered ----------------------------


def test_a_deployment_answering_503_falls_back_to_the_next_and_the_reply_names_it(
    settings,
    fake_openai,
    second_server,
):
    settings.DEBATE_MODEL_GROUPS = {
        "reasoning": [_deployment(fake_openai, "primary"), _deployment(second_server, "secondary")]
    }
    fake_openai.script(Reply.error(503))

    response = gateway.complete(messages=MESSAGES, step="analysis", role="utility")

    assert response.deployment == "secondary"
    assert response.model == second_server.model
    assert response.content == reply_to(MESSAGES)
    assert response.attempts == 1  # one attempt of the gateway: the Router fell back within it
    assert [r.status for r in fake_openai.log] == [503]
    assert [r.status for r in second_server.log] == [200]


def test_a_healthy_first_deployment_answers_alone(settings, fake_openai, second_server):
    settings.DEBATE_MODEL_GROUPS = {
        "reasoning": [_deployment(fake_openai, "primary"), _deployment(second_server, "secondary")]
    }
    response = gateway.complete(messages=MESSAGES, step="analysis", role="utility")
    assert response.deployment == "primary"
    assert (fake_openai.count(), second_server.count()) == (1, 0)


def test_a_group_falls_back_to_its_fallback_groups_after_its_own_deployments(
    settings,
    fake_openai,
    second_server,
):
    settings.DEBATE_MODEL_GROUPS = {
        "reasoning": [_deployment(fake_openai, "primary")],
        "cheap": [_deployment(second_server, "budget")],
    }
    settings.DEBATE_MODEL_FALLBACKS = {"reasoning": ["cheap"]}
    fake_openai.script(Reply.error(500))
    response = gateway.complete(messages=MESSAGES, step="analysis", role="utility")
    assert response.deployment == "budget"


def test_when_every_deployment_fails_the_gateway_retries_the_whole_chain(
    settings,
    fake_openai,
    second_server,
):
    settings.DEBATE_LLM_RETRY_BASE_DELAY = 0.01
    settings.DEBATE_MODEL_GROUPS = {
        "reasoning": [_deployment(fake_openai, "primary"), _deployment(second_server, "secondary")]
    }
    fake_openai.script(Reply.error(503), Reply.error(503))
    second_server.script(Reply.error(503))

    response = gateway.complete(messages=MESSAGES, step="analysis", role="utility")

    # attempt 1: primary 503, secondary 503; attempt 2: primary 503, secondary answers
    assert response.attempts == 2 and response.deployment == "secondary"
    assert [r.status for r in fake_openai.log] == [503, 503]
    assert [r.status for r in second_server.log] == [503, 200]


def test_retries_are_bounded_and_the_error_names_the_group(settings, fake_openai, second_server):
    settings.DEBATE_LLM_RETRY_BASE_DELAY = 0.01
    settings.DEBATE_MODEL_GROUPS = {
        "reasoning": [_deployment(fake_openai, "primary"), _deployment(second_server, "secondary")]
    }
    fake_openai.default = second_server.default = Reply.error(503)

    with pytest.raises(LLMError) as info:
        gateway.complete(messages=MESSAGES, step="analysis", role="utility", max_retries=1)

    assert not info.value.permanent and info.value.attempts == 2
    assert str(info.value).startswith("reasoning: gave up after 2 attempts")
    assert (fake_openai.count(), second_server.count()) == (2, 2)


def test_a_model_named_explicitly_wins_over_the_route(settings, fake_openai, second_server):
    settings.DEBATE_MODEL_GROUPS = {
        "reasoning": [_deployment(fake_openai, "primary")],
        "cheap": [_deployment(second_server, "budget")],
    }
    assert (
        gateway.complete(
            model="cheap", messages=MESSAGES, step="analysis", role="utility"
        ).deployment
        == "budget"
    )
    assert gateway.complete(model="primary", messages=MESSAGES).deployment == "primary"
    direct = gateway.complete(
        model="offline/pinned", messages=MESSAGES, step="analysis", role="utility"
    )
    assert (direct.model, direct.deployment) == ("offline/pinned", "")
    assert (fake_openai.count(), second_server.count()) == (1, 1)


def test_per_role_routes_pick_the_configured_group(settings, fake_openai, second_server):
    settings.DEBATE_MODEL_GROUPS = {
        "reasoning": [_deployment(fake_openai, "debaters")],
        "safety-group": [_deployment(second_server, "guardian")],
    }
    settings.DEBATE_MODEL_ROUTES = {"*:safety": "safety-group"}
    assert (
        gateway.complete(messages=MESSAGES, step="analysis", role="safety").deployment == "guardian"
    )
    assert (
        gateway.complete(messages=MESSAGES, step="analysis", role="utility").deployment
        == "debaters"
    )
    assert (fake_openai.count(), second_server.count()) == (1, 1)


# --- the allow-list -------------------------------------------------------------------------


def test_allowed_models_are_the_groups_their_deployments_the_default_and_the_setting(settings):
    settings.DEBATE_MODEL_GROUPS = {"reasoning": [{"model": "openai/gpt-4o", "name": "gpt"}]}
    settings.DEBATE_ALLOWED_MODELS = ["anthropic/claude-x", "offline/*"]
    config = routing.config()
    assert config.allowed_models() == [
        "arbitration",
        "cheap",
        "moderation",
        "reasoning",
        "offline/heuristic-demo",
        "openai/gpt-4o",
        "anthropic/claude-x",
        "offline/*",
    ]
    for name in [
        "cheap",
        "gpt",
        "openai/gpt-4o",
        "offline/heuristic-demo",
        "anthropic/claude-x",
        "offline/anything",
    ]:
        routing.check_model_choice(name)
    routing.check_model_choice("")  # routed
    for name in ["ollama/llama3", "openai/gpt-4o-mini", "anthropic/claude-y", " "]:
        with pytest.raises(ValidationError):
            routing.check_model_choice(name)


def test_a_refused_model_names_the_allowed_ones(settings):
    settings.DEBATE_ALLOWED_MODELS = []
    with pytest.raises(ValidationError) as info:
        routing.check_model_choice("ollama/llama3")
    assert info.value.messages == [
        "'ollama/llama3' is not an allowed model. Allowed: arbitration, cheap, moderation, "
        "reasoning, offline/heuristic-demo."
    ]


def test_offline_use_is_known_for_pinned_and_routed_participants(settings):
    settings.DEBATE_MODEL_GROUPS = {}
    config = routing.config()
    assert config.uses_offline("") and config.uses_offline("cheap")
    assert not config.uses_offline("openai/gpt-4o")
    settings.DEBATE_DEFAULT_MODEL = "openai/gpt-4o"
    assert not routing.config().uses_offline("")


# --- the admin's read-only page ---------------------------------------------------------------


@pytest.mark.django_db
def test_staff_read_the_routing_in_force_in_the_admin(client, django_user_model, settings):
    from django.contrib.auth.models import Permission

    settings.DEBATE_MODEL_GROUPS = {"cheap": [{"model": "openai/gpt-4o-mini", "name": "mini"}]}
    settings.DEBATE_MODEL_FALLBACKS = {"reasoning": ["cheap"]}
    viewer = django_user_model.objects.create_user("vic", password="a-long-pass", is_staff=True)
    client.force_login(viewer)
    assert client.get("/admin/agents/agent/routing/").status_code == 403
    viewer.user_permissions.add(Permission.objects.get(codename="view_agent"))

    response = client.get("/admin/agents/agent/routing/")

    assert response.status_code == 200
    text = " ".join(response.content.decode().split())
    assert "<td>cheap</td><td>mini (openai/gpt-4o-mini)</td><td>none</td>" in text
    assert "<td>reasoning</td><td>reasoning-1 (offline/heuristic-demo)</td><td>cheap</td>" in text
    assert "<td>challenge:*</td><td>cheap</td>" in text
    assert "openai/gpt-4o-mini" in text.split('data-testid="routing-allowed"')[1]
    assert "Model routing" in client.get("/admin/agents/agent/").content.decode()


def test_manage_py_check_reports_a_bad_routing_configuration(settings):
    from agents.checks import check_model_routing

    assert check_model_routing() == []
    settings.DEBATE_MODEL_ROUTES = {"turn:*": "nosuch"}
    [error] = check_model_routing()
    assert error.id == "agents.E001" and "'turn:*' -> 'nosuch'" in error.msg
