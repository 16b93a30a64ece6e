"""Spending limits: budgets per user, per API token, per installation and per debate, reserved
before every LLM call and settled after it (see `budgets.accounting`)."""
