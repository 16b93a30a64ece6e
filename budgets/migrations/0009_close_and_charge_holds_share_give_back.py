from django.db import migrations

from audit.sql_functions import create_or_replace


class Migration(migrations.Migration):
    """`budgets_close` and `budgets_charge_holds` give held amounts back through one function,
    `budgets_give_back`, instead of each its own copy of the counters' update."""

    dependencies = [
        ("budgets", "0008_admission_and_charged_holds"),
    ]

    operations = [
        create_or_replace("budgets", "budgets_give_back", version="ef48a1d2670b"),
        create_or_replace("budgets", "budgets_close", version="0c73e9d4168a"),
        create_or_replace("budgets", "budgets_charge_holds", version="4754351aca69"),
        # Loaded again after the function it calls: a SQL function's body is checked when it
        # is created, and on a new database 0008's load of budgets_charge_holds is now a no-op.
        create_or_replace("budgets", "budgets_release_stale", version="6d8eb7b36906"),
    ]
