"""`{% debate_baselines debate as view %}`: the baselines as the page shows them."""

from django import template

from debates.baselines import baselines_view

register = template.Library()


@register.simple_tag
def debate_baselines(debate):
    return baselines_view(debate)


@register.filter
def words(value):
    """ "more_cautious" -> "more cautious"."""
    return str(value or "").replace("_", " ")
