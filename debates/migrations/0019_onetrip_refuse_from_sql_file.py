"""`onetrip_refuse` as its file defines it (`debates/sql/`; see `audit.sql_functions`): 0018's
definition, moved there unchanged."""

from django.db import migrations

from audit.sql_functions import create_or_replace


class Migration(migrations.Migration):
    dependencies = [("debates", "0018_onetrip_refuse")]

    operations = [create_or_replace("debates", "onetrip_refuse", version="e8cbccb0703a")]
