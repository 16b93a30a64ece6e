from django import template

from debates.reviewing.triage import vote_counts

register = template.Library()


@register.filter
def vote_breakdown(metadata) -> list[tuple[str, int]]:
    """The non-zero vote counts of a decision's metadata, in a stable order (ACT first)."""
    return vote_counts(metadata or {})
