import django.contrib.postgres.indexes
from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations


class Migration(migrations.Migration):
    # The index is built without locking the table against writes (CREATE INDEX
    # CONCURRENTLY), which cannot run in a transaction.
    atomic = False

    dependencies = [
        ("reviews", "0009_budget_exceeded_in_one_item_rule"),
    ]

    operations = [
        AddIndexConcurrently(
            model_name="reviewitem",
            index=django.contrib.postgres.indexes.GinIndex(
                fields=["reasons"], name="reviewitem_reasons_gin"
            ),
        ),
    ]
