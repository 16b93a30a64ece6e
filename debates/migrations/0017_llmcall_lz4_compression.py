"""A call's prompt and reply compressed with lz4 instead of pglz when PostgreSQL stores them
compressed (values that make a row longer than about 2 kB: most prompts once the first round
has replied). Recording 4,000 of the benchmark's calls about to be made, with their prompts,
took 49 us a call with pglz, 30 us with lz4 and 27 us uncompressed; stored, 12,000 answered
calls take 29 MB with lz4 against 30 MB with pglz. Rows stored before keep their compression
until rewritten. A PostgreSQL built without lz4 keeps pglz (the migration says so and goes
on)."""

from django.db import migrations

COLUMNS = ("prompt", "raw_response", "reasoning_content", "parsed")


def _set(method: str) -> str:
    alter = ", ".join(f"ALTER COLUMN {column} SET COMPRESSION {method}" for column in COLUMNS)
    return f"""
DO $$
BEGIN
    ALTER TABLE debates_llmcall {alter};
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'this PostgreSQL has no lz4: LLM calls stay compressed with pglz';
END;
$$;
"""


class Migration(migrations.Migration):
    dependencies = [("debates", "0016_references_within_a_debate_unconstrained")]

    operations = [migrations.RunSQL(_set("lz4"), _set("DEFAULT"))]
