"""Writes and checks for agents: the one validator the admin and the API both use.

Which protocols an agent may take part in is the debates app's to say (its protocol registry);
it tells this module when it is ready (`set_protocol_names`), so agents import no debate code.
A selector (``auto``, which picks another protocol per debate) is not one an agent takes part
in, and is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.core.exceptions import ValidationError

_protocol_names: Callable[[], list[str]] = list


def set_protocol_names(source: Callable[[], list[str]]) -> None:
    """Called by the debates app: `source()` lists the protocols an agent may take part in."""
    global _protocol_names
    _protocol_names = source


def agent_protocol_names() -> list[str]:
    return list(_protocol_names())


def agent_protocols_clean(protocols: Iterable[str]) -> list[str]:
    """The protocols an agent takes part in by default, checked: every one must be a protocol
    an agent can take part in. Raises `ValidationError` ({"protocols": message})."""
    protocols = list(protocols)
    known = agent_protocol_names()
    unknown = [p for p in protocols if p not in known]
    if unknown:
        raise ValidationError(
            {"protocols": f"Unknown protocol(s): {', '.join(unknown)}. Known: {', '.join(known)}."}
        )
    return protocols
