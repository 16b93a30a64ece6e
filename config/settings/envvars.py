"""Reading settings from the environment strictly: a value that cannot be read is a start-up
error naming the variable, never a silent default."""

import os

from django.core.exceptions import ImproperlyConfigured

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


def env_bool(name: str, *, default: bool) -> bool:
    """`name` as a boolean: true/false, yes/no, on/off, 1/0 (any case); unset: `default`."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ImproperlyConfigured(
        f"{name}={raw!r} is not a boolean. Use one of: "
        f"{', '.join(sorted(TRUE_WORDS))} or {', '.join(sorted(FALSE_WORDS))}."
    )


def env_limit(name: str, *, default: str = "", kind: type = int):
    """`name` as a spending limit: a non-negative number (`kind` int or Decimal), or empty /
    "none" for no limit (None). Anything else is a start-up error naming the variable."""
    from decimal import Decimal, InvalidOperation

    raw = os.environ.get(name, default)
    text = raw.strip().replace("_", "")
    if text.lower() in ("", "none"):
        return None
    try:
        value = Decimal(text) if kind is Decimal else int(text)
    except (InvalidOperation, ValueError):
        value = None
    if value is None or (kind is Decimal and not value.is_finite()) or value < 0:
        noun = "an amount in USD such as 2.50" if kind is Decimal else "a whole number"
        raise ImproperlyConfigured(
            f"{name}={raw!r} is not a limit. Use {noun} (0 or more), or leave it empty for "
            "no limit."
        )
    return value


def env_site_url(name: str, *, default: str | None) -> str:
    """`name` as the site's public base URL, e.g. ``https://debates.example.org``: http or
    https, a host, no path, query or fragment; returned without a trailing slash. Unset:
    `default` (None: required)."""
    from urllib.parse import urlsplit

    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        if default is None:
            raise ImproperlyConfigured(
                f"{name} is not set (and the first of DJANGO_ALLOWED_HOSTS is not one host "
                "name to make it from). Set it to the site's public base URL, e.g. "
                "https://debates.example.org: webhook events link to it."
            )
        raw = default
    value = raw.strip().rstrip("/")
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 (a bad port raises here)
    except ValueError:
        parts = None
    if (
        parts is None
        or parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.path
        or parts.query
        or parts.fragment
        or parts.username
    ):
        raise ImproperlyConfigured(
            f"{name}={raw!r} is not a site URL. Use http(s)://host[:port] with no path, e.g. "
            "https://debates.example.org."
        )
    return value
