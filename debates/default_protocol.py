"""The protocol a debate or a schedule gets when none is chosen: one setting,
`DEBATE_DEFAULT_PROTOCOL` (s4 unless configured), read wherever a default is needed (the
models' field defaults, the New debate page, the API, the CLI). It must name a registered
protocol: `check_default_protocol` runs when Django starts, so a misspelt name stops every
process (web, worker, command) with an error that names the known protocols."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from protocols import PROTOCOLS


def default_protocol() -> str:
    """The configured default protocol (also the models' field default: migrations name this
    function, so it stays here)."""
    return settings.DEBATE_DEFAULT_PROTOCOL


def check_default_protocol() -> None:
    """Raise `ImproperlyConfigured` unless the default protocol is a registered one."""
    name = default_protocol()
    if name not in PROTOCOLS:
        raise ImproperlyConfigured(
            f"DEBATE_DEFAULT_PROTOCOL={name!r} is not a protocol. "
            f"Use one of: {', '.join(sorted(PROTOCOLS))}."
        )
