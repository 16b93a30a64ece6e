"""System checks of the model configuration."""

from __future__ import annotations

from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured

from agents import routing
from agents.routing import is_offline_model

OFFLINE_DEFAULT_ERROR = "agents.E002"


@checks.register(checks.Tags.compatibility)
def offline_model_not_default(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """Where `DEBATE_ALLOW_OFFLINE_MODEL` is off (production), the scripted offline model may
    not be the default: its judgements are a transparent rule set, not a language model's."""
    if getattr(settings, "DEBATE_ALLOW_OFFLINE_MODEL", True):
        return []
    if not is_offline_model(settings.DEBATE_DEFAULT_MODEL):
        return []
    return [
        checks.Error(
            f"DEBATE_DEFAULT_MODEL is {settings.DEBATE_DEFAULT_MODEL!r}, the built-in offline "
            "heuristic demo model (a transparent rule set, not a language model).",
            hint="Set a real model: DEBATE_DEFAULT_MODEL=openai/gpt-4o-mini (with "
            "OPENAI_API_KEY), or any litellm model string (anthropic/..., ollama/...). To run "
            "the demo model anyway, set DEBATE_ALLOW_OFFLINE_MODEL=true.",
            id=OFFLINE_DEFAULT_ERROR,
        )
    ]


@checks.register(checks.Tags.compatibility)
def check_model_routing(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """The model groups, routes and fallbacks in the settings make sense (`manage.py check`,
    and every management command that runs checks)."""
    try:
        routing.config()
    except ImproperlyConfigured as exc:
        return [checks.Error(str(exc), id="agents.E001")]
    return []
