"""litellm, imported once per process, with the built-in offline model registered as a custom
provider (`agents.offline`)."""

from __future__ import annotations

import threading

from agents.routing import OFFLINE_PROVIDER

_setup_lock = threading.Lock()
_litellm = None


def get_litellm():
    """Import litellm once per process and register the offline provider with it."""
    global _litellm
    if _litellm is None:
        with _setup_lock:
            if _litellm is None:
                import litellm

                from agents.offline import OfflineDebateModel

                litellm.telemetry = False
                litellm.suppress_debug_info = True
                providers = [
                    p for p in litellm.custom_provider_map if p.get("provider") != OFFLINE_PROVIDER
                ]
                providers.append(
                    {"provider": OFFLINE_PROVIDER, "custom_handler": OfflineDebateModel()}
                )
                litellm.custom_provider_map = providers
                litellm.utils.custom_llm_setup()
                _litellm = litellm
    return _litellm


def load() -> None:
    """Import litellm and register the offline provider now rather than on the first call."""
    get_litellm()
