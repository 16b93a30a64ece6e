"""Serializer fields for what the gateway stores."""

from agents.errors import error_for
from api.fields import BlankAsNullCharField


class ModelErrorField(BlankAsNullCharField):
    """A stored model error: whole for staff, without the provider's details for others."""

    def to_representation(self, value):
        user = getattr(self.context.get("request"), "user", None)
        return error_for(value or "", staff=bool(getattr(user, "is_staff", False))) or None
