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


def _bounds(minimum, maximum) -> str:
    if maximum is None:
        return f"{minimum:g} or more"
    if minimum is None:
        return f"{maximum:g} or less"
    return f"from {minimum:g} to {maximum:g}"


def env_int(name: str, *, default: int, minimum: int | None = 0, maximum: int | None = None):
    """`name` as a whole number within [`minimum`, `maximum`]; unset: `default` (which must
    be within them too: bounds may follow other settings). Anything else is a start-up error
    naming the variable and the range it accepts."""
    raw = os.environ.get(name)
    if raw is None:
        raw = str(default)
    try:
        value = int(raw.strip().replace("_", ""))
    except ValueError:
        value = None
    if (
        value is None
        or (minimum is not None and value < minimum)
        or (maximum is not None and value > maximum)
    ):
        raise ImproperlyConfigured(
            f"{name}={raw!r} is not valid: use a whole number {_bounds(minimum, maximum)}."
        )
    return value


def env_float(
    name: str,
    *,
    default: float,
    minimum: float | None = 0.0,
    maximum: float | None = None,
    above: bool = False,
) -> float:
    """`name` as a finite number within [`minimum`, `maximum`] (above `minimum`, not at it,
    with `above`: a timeout or an interval of 0 would mean nothing); unset: `default`."""
    import math

    raw = os.environ.get(name)
    if raw is None:
        raw = str(default)
    try:
        value = float(raw.strip())
    except ValueError:
        value = math.nan
    low_ok = minimum is None or (value > minimum if above else value >= minimum)
    if not math.isfinite(value) or not low_ok or (maximum is not None and value > maximum):
        what = (
            f"more than {minimum:g}" + (f" and at most {maximum:g}" if maximum is not None else "")
            if above
            else _bounds(minimum, maximum)
        )
        raise ImproperlyConfigured(f"{name}={raw!r} is not valid: use a number {what}.")
    return value


RATE_PERIODS = ("second", "minute", "hour", "day")


def env_rate(name: str, *, default: str) -> str:
    """`name` as a rate: "<number>/<second|minute|hour|day>" (the number 1 or more; the period
    may be shortened, "30/min"), e.g. "30/minute"; unset: `default`."""
    raw = os.environ.get(name, default)
    count, _, period = raw.strip().partition("/")
    word = period.strip().lower()
    unit = word[:-1] if word.endswith("s") and len(word) > 1 else word
    found = [p for p in RATE_PERIODS if unit and p.startswith(unit)]  # "min", "minutes"
    try:
        ok = int(count) >= 1 and len(found) == 1
    except ValueError:
        ok = False
    if not ok:
        raise ImproperlyConfigured(
            f"{name}={raw!r} is not a rate: use <number>/<{'|'.join(RATE_PERIODS)}>, the "
            "number 1 or more, e.g. 30/minute."
        )
    return f"{int(count)}/{found[0]}"


def env_words(name: str, *, default: list[str]) -> list[str]:
    """`name` as a comma-separated list of at least one word (letters, digits, underscores);
    unset: `default`."""
    import re

    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    words = [w.strip() for w in raw.split(",") if w.strip()]
    if not words or not all(re.fullmatch(r"[a-z0-9_]+", w) for w in words):
        raise ImproperlyConfigured(
            f"{name}={raw!r} is not valid: list at least one name (lowercase letters, digits, "
            "underscores), separated by commas."
        )
    return words


def env_prices(name: str) -> dict[str, dict[str, float]]:
    """`name` as JSON prices per model, USD per million tokens:
    {"openai/my-model": {"input": 0.15, "output": 0.60}}, each price a finite number, 0 or
    more; unset: none."""
    import json
    import math

    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return {}

    def fail(problem: str):
        raise ImproperlyConfigured(
            f"{name} is not valid: {problem}. Use JSON such as "
            '{"openai/my-model": {"input": 0.15, "output": 0.60}} (USD per million tokens, '
            "each a number, 0 or more)."
        )

    try:
        prices = json.loads(raw, parse_constant=lambda c: fail(f"{c} is not a price"))
    except ValueError:
        fail("it is not JSON")
    if not isinstance(prices, dict):
        fail("it is not an object of model -> prices")
    for model, entry in prices.items():
        if not isinstance(entry, dict) or not entry or set(entry) - {"input", "output"}:
            fail(f'{model!r} must map to {{"input": ..., "output": ...}}')
        for kind, value in entry.items():
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
                or value < 0
            ):
                fail(f"{model!r} {kind} price {value!r} is not a number, 0 or more")
    return prices


def env_json_object(name: str) -> dict:
    """`name` as a JSON object; unset or empty: {}. What it holds is checked where it is read
    (model routing), with messages of its own."""
    import json

    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise ImproperlyConfigured(f"{name}={raw!r} is not valid: use a JSON object, {{...}}.")
    return value
