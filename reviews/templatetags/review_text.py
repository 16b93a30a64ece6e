"""`{{ text|headline }}`: the first line of a long text (a provider's error with its
traceback), cut to a length that fits one line of the queue; the whole text goes behind a
<details> on the pages that show it (`reviews/_error.html`)."""

from django import template

register = template.Library()

HEADLINE_CHARS = 160


@register.filter
def headline(text) -> str:
    line = next((part.strip() for part in str(text or "").splitlines() if part.strip()), "")
    if len(line) <= HEADLINE_CHARS:
        return line
    return line[: HEADLINE_CHARS - 1].rstrip() + "…"


@register.filter
def is_long(text) -> bool:
    """Whether the text is more than its headline (several lines, or cut)."""
    return headline(text) != str(text or "").strip()
