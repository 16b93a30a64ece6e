"""Test objects made to order (factory_boy): people, and debates stored as if completed."""

from __future__ import annotations

import factory
from django.conf import settings
from django.utils import timezone
from factory.django import DjangoModelFactory, Password

from accounts.roles import ROLES, grant_roles
from debates.models import Debate


class UserFactory(DjangoModelFactory):
    """Someone signed up (not staff). The password is hashed as `create_user` would."""

    class Meta:
        model = settings.AUTH_USER_MODEL

    username = factory.Sequence(lambda n: f"user{n}")
    password = Password("a-long-passphrase")
    is_staff = False


class StaffFactory(UserFactory):
    """Staff with every role (Reviewer, Agent editor, Operator); `roles=[...]` for fewer."""

    class Meta:
        skip_postgeneration_save = True

    is_staff = True

    @factory.post_generation
    def roles(self, create, extracted, **kwargs):
        if create:
            grant_roles(self, *(ROLES if extracted is None else extracted))


def with_roles(user, *names: str):
    """`user` with the roles `names` (every role when none are named)."""
    grant_roles(user, *(names or ROLES))
    return user


class CompletedDebateFactory(DjangoModelFactory):
    """A completed debate stored directly (no agents, no calls), for decision metadata made to
    order."""

    class Meta:
        model = Debate

    query = "A question"
    status = Debate.Status.COMPLETED
    decision = "WARN"
    metadata = factory.LazyFunction(dict)
    injection_findings = factory.LazyFunction(list)
    completed_at = factory.LazyFunction(timezone.now)
