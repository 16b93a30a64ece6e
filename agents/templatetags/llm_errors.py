"""`{{ text|error_for:user }}`: a stored model error as this user may see it (the details of a
provider's error are for staff only; see `agents.gateway.error_for`)."""

from django import template

from agents import errors

register = template.Library()


@register.filter
def error_for(text: str, user) -> str:
    return errors.error_for(text or "", staff=bool(getattr(user, "is_staff", False)))
