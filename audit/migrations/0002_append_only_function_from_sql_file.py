"""`audit_entry_append_only` as its file defines it (`audit/sql/`; see `audit.sql_functions`):
0001's definition, moved there unchanged (the trigger that calls it stays 0001's)."""

from django.db import migrations

from audit.sql_functions import create_or_replace


class Migration(migrations.Migration):
    dependencies = [("audit", "0001_audit_entries")]

    operations = [
        create_or_replace("audit", "audit_entry_append_only", version="0b0423801554"),
    ]
