"""A process that spends against one budget:
`python -m tests.budgets.spend KEY LIMIT CALLS ESTIMATE ACTUAL`. Once set up it prints `ready`
and waits for a line on its input, so that the caller starts two of them together. Each call
reserves ESTIMATE tokens against a daily limit of LIMIT tokens on counter KEY, holds them a
moment (the call in flight), then settles ACTUAL tokens. Prints how many calls were let through
and how many refused."""

from __future__ import annotations

import os
import sys
import time
from decimal import Decimal


def main(key: str, limit: int, calls: int, estimate: int, actual: int) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    import django

    django.setup()
    from budgets import accounting
    from budgets.limits import DAY, Allowance, BudgetExceeded, Spender

    print("ready", flush=True)
    sys.stdin.readline()  # the caller lets both processes go at once
    spender = Spender(allowances=(Allowance(scope="user", key=key, period=DAY, tokens=limit),))
    made = refused = 0
    for _ in range(calls):
        try:
            held = accounting.reserve(spender, cost=Decimal(0), tokens=estimate)
        except BudgetExceeded:
            refused += 1
            continue
        time.sleep(0.005)
        accounting.settle(held, model="m", tokens_in=actual, tokens_out=0, cost=Decimal(0))
        made += 1
    print(f"{made} {refused}")


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:6]))
