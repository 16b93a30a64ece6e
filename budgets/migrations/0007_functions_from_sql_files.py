"""The budgets' functions as their files define them (`budgets/sql/`; see
`audit.sql_functions`): the definitions of 0002 and 0006, moved there unchanged."""

from django.db import migrations

from audit.sql_functions import create_or_replace


class Migration(migrations.Migration):
    dependencies = [("budgets", "0006_set_based_reserve_settle")]

    operations = [
        create_or_replace("budgets", "budgets_reserve", version="70dd11c3b047"),
        create_or_replace("budgets", "budgets_settle", version="d4a98a6e0e08"),
        create_or_replace("budgets", "budgets_release_stale", version="1dd7429a3fe4"),
        create_or_replace("budgets", "budgets_reserve_many", version="ce479843da26"),
        create_or_replace("budgets", "budgets_settle_many", version="c94754048f01"),
    ]
