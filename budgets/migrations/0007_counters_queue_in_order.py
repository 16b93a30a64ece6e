"""Spending against a busy counter waits in line instead of in a crowd. Same signatures, same
rows returned, same changes as 0006.

Every call of every debate reserves against, and settles on, the installation's daily counter:
one row that each reserving and settling statement locks until it commits. 0006's functions
reached it through `INSERT ... ON CONFLICT`: the reservation made sure the counters existed by
inserting them all (`DO NOTHING`), the settling added to them by an upsert (`DO UPDATE`). An
insertion that meets a row another transaction is changing waits for that transaction itself,
not in the row's queue; so when it ends, every statement waiting on the row wakes, retries, and
all but one go back to waiting: with thirty debates at once, each commit woke about thirty
backends, and those retries were most of the database's CPU for the spending limits.

Now a reservation inserts only the counters it does not find (a plain read, which never
waits: on most calls there are none), and settling first locks the counters it names with
`SELECT ... FOR UPDATE`, in (key, period) order, as the reservation does: a locking read queues
on the row, one waiter woken at a time. Its upsert then finds the rows already locked by its
own transaction. A counter created meanwhile by another transaction is still met by the
insertion's `ON CONFLICT`, as before."""

from importlib import import_module

from django.db import migrations

BEFORE = import_module("budgets.migrations.0006_set_based_reserve_settle")


def _replaced(sql: str, old: str, new: str) -> str:
    if sql.count(old) != 1:
        raise ValueError(f"the function body no longer holds {old!r}")
    return sql.replace(old, new)


RESERVE_MANY = _replaced(
    BEFORE.RESERVE_MANY,
    """        SELECT k, p, 0, 0, 0, 0, 0, 0, at FROM pairs ORDER BY k, p
        ON CONFLICT (key, period) DO NOTHING""",
    """        SELECT k, p, 0, 0, 0, 0, 0, 0, at FROM pairs
        WHERE NOT EXISTS (SELECT FROM budgets_counter b WHERE b.key = k AND b.period = p)
        ORDER BY k, p
        ON CONFLICT (key, period) DO NOTHING""",
)

SETTLE_MANY = _replaced(
    BEFORE.SETTLE_MANY,
    """    SELECT array_agg(id) INTO released FROM gone;
""",
    """    SELECT array_agg(id) INTO released FROM gone;

    -- The counters named, locked in (key, period) order: in the rows' own queues.
    PERFORM 1 FROM budgets_counter b
    WHERE (b.key, b.period) IN (
        SELECT e.entry->>'key', e.entry->>'period'
        FROM unnest(spent) AS s(entries), jsonb_array_elements(s.entries) AS e(entry))
    ORDER BY b.key, b.period
    FOR UPDATE OF b;
""",
)


class Migration(migrations.Migration):
    dependencies = [("budgets", "0006_set_based_reserve_settle")]

    operations = [
        migrations.RunSQL(SETTLE_MANY, BEFORE.SETTLE_MANY),
        migrations.RunSQL(RESERVE_MANY, BEFORE.RESERVE_MANY),
    ]
