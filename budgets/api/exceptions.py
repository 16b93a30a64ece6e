from __future__ import annotations

from django.utils import timezone
from rest_framework import exceptions, status

from budgets.limits import Breach


class BudgetLimitReached(exceptions.APIException):
    """429 for a start a spending limit refuses: the limit, what is used, when it resets, and
    `Retry-After` (seconds to the reset; none for a limit that never resets)."""

    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_code = "budget_exceeded"

    def __init__(self, breach: Breach):
        super().__init__(breach.message())
        self.detail = {"detail": breach.message(), "code": "budget_exceeded", **breach.as_dict()}
        self.wait = breach.retry_after(timezone.localtime())
