"""The suite's own machinery: what a transactional test leaves behind it."""

import pytest
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test import TransactionTestCase

import audit
from debates import services
from tests.conftest import KEPT_TABLES


@pytest.mark.django_db(transaction=True)
def test_a_transactional_tests_teardown_empties_every_table_but_the_content_types(
    default_agents, django_user_model
):
    ana = django_user_model.objects.create_user("ana")
    ana.groups.add(Group.objects.create(name="reviewers"))
    audit.record(actor=ana, action="test.act", subject=ana, note="append-only")
    services.debate_create(
        query="Is the teardown thorough?", protocol="s4", created_by=ana, enqueue=False
    )
    types, permissions = ContentType.objects.count(), Permission.objects.count()
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)

    def rows() -> dict[str, int]:
        with connection.cursor() as cursor:
            counts = {}
            for table in tables:
                cursor.execute(f"SELECT count(*) FROM {connection.ops.quote_name(table)}")
                counts[table] = cursor.fetchone()[0]
            return counts

    before = rows()
    assert {"auth_user", "auth_group", "audit_auditentry", "debates_debate"} <= {
        t for t, n in before.items() if n
    }

    class Case(TransactionTestCase):
        databases = {"default"}

    Case("__init__")._fixture_teardown()

    after = rows()
    assert {t: n for t, n in after.items() if n and t not in KEPT_TABLES} == {}
    assert (ContentType.objects.count(), Permission.objects.count()) == (types, permissions)
    # Triggers and foreign keys act again once the teardown is over.
    with connection.cursor() as cursor:
        cursor.execute("SHOW session_replication_role")
        assert cursor.fetchone() == ("origin",)
    audit.record(actor=None, action="test.act", subject=ana, note="after")
    with pytest.raises(Exception, match="append-only"):
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM audit_auditentry")
