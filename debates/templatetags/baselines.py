"""`{% debate_baselines debate as view %}`: the baselines as the page shows them; `|percent`: a
confidence on the one scale pages use (0-100 %)."""

from django import template

from debates.baselines import baselines_view
from debates.quality import quality_rows
from protocols import presentation

register = template.Library()


@register.simple_tag
def debate_baselines(debate):
    """The baselines with each agent by its display name (the API keeps the slugs)."""
    view = baselines_view(debate)
    if view is None:
        return None
    names = {p.slug: p.name for p in debate.participants.all()}
    return {
        **view,
        "agents": [{**a, "agent": names.get(a["agent"], a["agent"])} for a in view["agents"]],
    }


@register.simple_tag
def debate_quality(debate):
    """[(label, score or None)] of the debate's quality scores; empty until recorded."""
    return quality_rows(debate)


@register.filter
def words(value):
    """ "more_cautious" -> "more cautious"."""
    return str(value or "").replace("_", " ")


@register.filter
def percent(value) -> str:
    """`{{ vote.confidence|percent }}`: a 0-100 confidence as pages show every confidence."""
    return presentation.percent(value)


@register.filter
def unit_percent(value) -> str:
    """`{{ report.confidence|unit_percent }}`: a 0-1 confidence (a contradiction report's, a
    moderated debate's decision) on the same 0-100 % scale."""
    return presentation.percent_of_unit(value)
