"""Which deployment answers a call, and which models users may choose.

Operators name groups of deployments (`DEBATE_MODEL_GROUPS`: `reasoning`, `moderation`,
`arbitration`, `cheap`, or their own), and route each call by its protocol step and its agent's
role to a group (`DEBATE_MODEL_ROUTES`, over `DEFAULT_ROUTES`). A group that is not configured
has one deployment, `DEBATE_DEFAULT_MODEL` (the offline model unless set), so nothing needs a key.

litellm's Router makes the calls: every deployment is one Router model (its name is the
deployment's id), and a call to a group goes to the group's first deployment with the rest of
the group, then the groups named in `DEBATE_MODEL_FALLBACKS`, as the Router's fallbacks, in
order. The Router retries nothing itself (`num_retries=0`, no cooldowns): the gateway's bounded
retries (`DEBATE_LLM_MAX_RETRIES`) run the whole chain again after a transient failure.

What a call asks for, strongest first: the agent's own `model_name`, then the debate's `model`
option, then the route. A name asked for is a group (its chain), a deployment's id or model
string (that deployment alone), or any other allowed litellm model string (called directly).
"""

from __future__ import annotations

import fnmatch
import json
import threading
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured, ValidationError

#: The provider prefix of the built-in offline model (`agents.offline`).
OFFLINE_PROVIDER = "offline"


def is_offline_model(model: str) -> bool:
    return model.split("/", 1)[0] == OFFLINE_PROVIDER


GROUPS = ("reasoning", "moderation", "arbitration", "cheap")
ANY = "*"
# "step:role" -> group; the most specific match wins: step:role, step:*, *:role, *:*.
DEFAULT_ROUTES: dict[str, str] = {
    "moderation:*": "moderation",
    "synthesis:*": "moderation",
    "challenge:*": "cheap",
    "arbitration:*": "arbitration",
    "*:*": "reasoning",
}
ARBITRATION_STEP = "arbitration"
ARBITRATOR_ROLE = "arbitrator"


@dataclass(frozen=True)
class Deployment:
    """One place a group's calls can go: litellm parameters (`model`, `api_base`, `api_key` as
    `os.environ/NAME`, ...) under an id that calls record, and the provider's limits on it
    (`rpm`, `tpm`: requests and tokens per minute, kept by every worker together:
    `agents.provider_limits`)."""

    id: str
    group: str
    params: dict[str, Any] = field(hash=False, compare=False)
    rpm: int | None = None
    tpm: int | None = None

    @property
    def model(self) -> str:
        return self.params["model"]

    @property
    def label(self) -> str:
        return f"{self.id} ({self.model})"


@dataclass(frozen=True)
class Target:
    """Where one call goes: `deployments` in order through the Router, or `model` directly."""

    name: str
    deployments: tuple[Deployment, ...] = ()

    @property
    def routed(self) -> bool:
        return bool(self.deployments)


def _deployments(group: str, entries: Any) -> tuple[Deployment, ...]:
    if isinstance(entries, (str, dict)):
        entries = [entries]
    if not isinstance(entries, list) or not entries:
        raise ImproperlyConfigured(
            f"DEBATE_MODEL_GROUPS[{group!r}] must be a model string, an object of litellm "
            "parameters with a 'model', or a non-empty list of them."
        )
    found = []
    for i, entry in enumerate(entries, start=1):
        params = {"model": entry} if isinstance(entry, str) else dict(entry)
        name = str(params.pop("name", "") or f"{group}-{i}")
        if not isinstance(params.get("model"), str) or not params["model"].strip():
            raise ImproperlyConfigured(f"DEBATE_MODEL_GROUPS[{group!r}] entry {i} has no 'model'.")
        limits = {key: _limit(group, i, key, params.pop(key, None)) for key in ("rpm", "tpm")}
        found.append(Deployment(id=name, group=group, params=params, **limits))
    return tuple(found)


def _limit(group: str, i: int, key: str, value: Any) -> int | None:
    """A deployment's `rpm` or `tpm`: a whole number above 0, or absent (no limit)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ImproperlyConfigured(
            f"DEBATE_MODEL_GROUPS[{group!r}] entry {i}: {key!r} must be a whole number above 0 "
            f"(the provider's {'requests' if key == 'rpm' else 'tokens'} per minute), not "
            f"{value!r}."
        )
    return value


class RoutingConfig:
    """The groups, routes, fallbacks and allow-list, read from settings and checked."""

    def __init__(
        self,
        *,
        groups: dict[str, Any],
        routes: dict[str, str],
        fallbacks: dict[str, list[str]],
        allowed: list[str],
        default_model: str,
    ):
        configured = dict(groups or {})
        self.groups: dict[str, tuple[Deployment, ...]] = {
            name: _deployments(name, configured.pop(name, default_model)) for name in GROUPS
        }
        self.groups.update({name: _deployments(name, e) for name, e in configured.items()})
        self.routes = {**DEFAULT_ROUTES, **(routes or {})}
        self.fallbacks = {g: tuple(f) for g, f in (fallbacks or {}).items()}
        self.extra_allowed = tuple(a.strip() for a in allowed if a.strip())
        self.default_model = default_model
        self.by_id: dict[str, Deployment] = {}
        for deployment in (d for ds in self.groups.values() for d in ds):
            if deployment.id in self.by_id:
                raise ImproperlyConfigured(f"Two deployments are named {deployment.id!r}.")
            self.by_id[deployment.id] = deployment
        for key, group in self.routes.items():
            if key.count(":") != 1 or group not in self.groups:
                raise ImproperlyConfigured(
                    f"DEBATE_MODEL_ROUTES: {key!r} -> {group!r} must map 'step:role' ('*' for "
                    f"any) to a group ({', '.join(sorted(self.groups))})."
                )
        for group, others in self.fallbacks.items():
            unknown = [g for g in (group, *others) if g not in self.groups]
            if unknown:
                raise ImproperlyConfigured(
                    f"DEBATE_MODEL_FALLBACKS names unknown group(s): {', '.join(unknown)}."
                )

    # --- routing ------------------------------------------------------------------------------

    def route(self, step: str, role: str) -> str:
        """The group a call of this protocol step by an agent of this role goes to."""
        for key in (f"{step}:{role}", f"{step}:{ANY}", f"{ANY}:{role}", f"{ANY}:{ANY}"):
            if key in self.routes:
                return self.routes[key]
        return "reasoning"

    def chain(self, group: str) -> tuple[Deployment, ...]:
        """The group's deployments, then its fallback groups', each deployment once."""
        seen: dict[str, Deployment] = {}
        for name in (group, *self.fallbacks.get(group, ())):
            for deployment in self.groups[name]:
                seen.setdefault(deployment.id, deployment)
        return tuple(seen.values())

    def deployment_for(self, name: str) -> Deployment | None:
        if name in self.by_id:
            return self.by_id[name]
        return next((d for d in self.by_id.values() if d.model == name), None)

    def target(self, model: str | None, *, step: str = "", role: str = "") -> Target:
        name = (model or "").strip()
        if not name:
            name = self.route(step, role)
        if name in self.groups:
            return Target(name=name, deployments=self.chain(name))
        deployment = self.deployment_for(name)
        if deployment is not None:
            return Target(name=name, deployments=(deployment,))
        return Target(name=name)

    # --- what users may choose ----------------------------------------------------------------

    def allowed_models(self) -> list[str]:
        """Group names, every deployment's model string, the default model and
        `DEBATE_ALLOWED_MODELS` (which may end in `*`: `offline/*`)."""
        names = [
            *sorted(self.groups),
            *sorted({d.model for d in self.by_id.values()}),
            self.default_model,
            *self.extra_allowed,
        ]
        return list(dict.fromkeys(names))

    def is_allowed(self, name: str) -> bool:
        if name in self.groups or name in self.by_id or name == self.default_model:
            return True
        if any(d.model == name for d in self.by_id.values()):
            return True
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.extra_allowed)

    def uses_offline(self, model: str | None) -> bool:
        """Whether calls for this pin (empty: routed) may reach the offline model."""
        name = (model or "").strip()
        if name:
            target = self.target(name)
            models = [d.model for d in target.deployments] or [target.name]
        else:
            models = [d.model for g in set(self.routes.values()) for d in self.chain(g)]
        return any(is_offline_model(m) for m in models)


_lock = threading.Lock()
_cache: dict[str, Any] = {}


def _settings_key() -> str:
    return json.dumps(
        [
            settings.DEBATE_MODEL_GROUPS,
            settings.DEBATE_MODEL_ROUTES,
            settings.DEBATE_MODEL_FALLBACKS,
            settings.DEBATE_ALLOWED_MODELS,
            settings.DEBATE_DEFAULT_MODEL,
        ],
        sort_keys=True,
        default=str,
    )


def config() -> RoutingConfig:
    """The configuration in force (rebuilt when the settings change, as in tests)."""
    key = _settings_key()
    with _lock:
        if _cache.get("key") != key:
            _cache.clear()
            _cache["config"] = RoutingConfig(
                groups=settings.DEBATE_MODEL_GROUPS,
                routes=settings.DEBATE_MODEL_ROUTES,
                fallbacks=settings.DEBATE_MODEL_FALLBACKS,
                allowed=settings.DEBATE_ALLOWED_MODELS,
                default_model=settings.DEBATE_DEFAULT_MODEL,
            )
            _cache["key"] = key
        return _cache["config"]


def router(litellm):
    """litellm's Router over every deployment of the configuration in force, made once."""
    current = config()
    with _lock:
        if _cache.get("router_for") is not current:
            _cache["router"] = litellm.Router(
                model_list=[
                    {
                        "model_name": d.id,
                        "litellm_params": dict(d.params),
                        "model_info": {"id": d.id},
                    }
                    for d in current.by_id.values()
                ],
                num_retries=0,
                max_fallbacks=max(len(current.by_id), 1),
                # A failed deployment is tried again on the next call (no cooldown): failures
                # are retried by the gateway alone, the same way every time.
                disable_cooldowns=True,
            )
            _cache["router_for"] = current
        return _cache["router"]


def router_fallbacks(target: Target) -> list[dict[str, list[str]]]:
    """The Router's per-call fallbacks: the target's first deployment, then the others."""
    first, *rest = target.deployments
    return [{first.id: [d.id for d in rest]}] if rest else []


# --- checks used where users choose --------------------------------------------------------------


def check_model_choice(name: Any) -> None:
    """Raise `ValidationError` unless `name` (a model a user asks for) is allowed. Empty is
    allowed: it means "routed"."""
    if name in (None, ""):
        return
    if not isinstance(name, str) or not name.strip():
        raise ValidationError("Give a model name from the allowed list, or leave it empty.")
    current = config()
    if not current.is_allowed(name.strip()):
        raise ValidationError(
            f"{name.strip()[:100]!r} is not an allowed model. Allowed: "
            f"{', '.join(current.allowed_models())}."
        )


def pinned_model(*names: str | None) -> str:
    """The first model named (an agent's own, then the debate's option), or "" for routed."""
    return next((n.strip() for n in names if n and n.strip()), "")


def label(model: str | None) -> str:
    """How a participant's model reads in a transcript."""
    return (model or "").strip() or "routed by step and role"
