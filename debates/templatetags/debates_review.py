from django import template

from debates.reviewing.pages import decision_html

register = template.Library()


@register.simple_tag
def review_decision(debate):
    """`{% review_decision debate %}`: the effective decision, and the machine's when a reviewer
    overrode it (`debates.reviewing.pages.decision_html`)."""
    return decision_html(debate)
