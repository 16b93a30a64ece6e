"""What a call costs: a deployment's own prices, then `BUDGET_MODEL_PRICES`, then litellm's cost
map (the offline model costs nothing)."""

from __future__ import annotations

import logging
from decimal import Decimal

from django.conf import settings

from agents import routing
from agents.litellm_loader import get_litellm
from agents.routing import is_offline_model

logger = logging.getLogger(__name__)

_MILLION = Decimal(1_000_000)


def price(model: str, deployment: routing.Deployment | None = None) -> tuple[Decimal, Decimal]:
    """USD per input and per output token: the deployment's litellm prices, then
    BUDGET_MODEL_PRICES (per million), then litellm's cost map; (0, 0) when none knows."""
    if is_offline_model(model):
        return Decimal(0), Decimal(0)
    params = deployment.params if deployment else {}
    if "input_cost_per_token" in params or "output_cost_per_token" in params:
        return (
            Decimal(str(params.get("input_cost_per_token") or 0)),
            Decimal(str(params.get("output_cost_per_token") or 0)),
        )
    table = settings.BUDGET_MODEL_PRICES.get(model)
    if isinstance(table, dict):
        return (
            Decimal(str(table.get("input", 0))) / _MILLION,
            Decimal(str(table.get("output", 0))) / _MILLION,
        )
    known = get_litellm().model_cost
    entry = known.get(model) or known.get(model.split("/", 1)[-1]) or {}
    return (
        Decimal(str(entry.get("input_cost_per_token") or 0)),
        Decimal(str(entry.get("output_cost_per_token") or 0)),
    )


def priced_here(model: str, deployment: routing.Deployment | None) -> bool:
    params = deployment.params if deployment else {}
    return (
        "input_cost_per_token" in params
        or "output_cost_per_token" in params
        or isinstance(settings.BUDGET_MODEL_PRICES.get(model), dict)
    )


def cost(litellm, response, model: str, deployment: routing.Deployment | None = None) -> Decimal:
    if is_offline_model(model):
        return Decimal(0)
    if priced_here(model, deployment):
        usage = getattr(response, "usage", None)
        price_in, price_out = price(model, deployment)
        return price_in * int(getattr(usage, "prompt_tokens", 0) or 0) + price_out * int(
            getattr(usage, "completion_tokens", 0) or 0
        )
    # litellm prices every reply as it builds it: take that figure rather than price it again.
    hidden = getattr(response, "_hidden_params", None) or {}
    if hidden.get("response_cost") is not None:
        return Decimal(str(hidden["response_cost"]))
    try:
        return Decimal(str(litellm.completion_cost(completion_response=response) or 0))
    except Exception:  # noqa: BLE001 - a model missing from the cost map costs "unknown" = 0
        logger.info("no cost known for model %s; recorded as 0", model)
        return Decimal(0)
