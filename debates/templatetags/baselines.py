"""`{% debate_baselines debate as view %}`: the baselines as the page shows them."""

from django import template

from debates.baselines import baselines_view
from debates.quality import quality_rows

register = template.Library()


@register.simple_tag
def debate_baselines(debate):
    return baselines_view(debate)


@register.simple_tag
def debate_quality(debate):
    """[(label, score or None)] of seed 003's quality scores; empty until recorded."""
    return quality_rows(debate)


@register.filter
def words(value):
    """ "more_cautious" -> "more cautious"."""
    return str(value or "").replace("_", " ")
