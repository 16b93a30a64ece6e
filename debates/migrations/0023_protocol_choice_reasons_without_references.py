"""Stored `auto` choices in the words `protocols.selection` now writes: a reason reads "matched
the trigger keyword 'advice'" or "..., a widening of the trigger keyword 'investment' to its
stem", and each match names its `listed_keyword` (the key was `seed_keyword`). Only debates
whose `metadata["protocol_choice"]` holds the former wording are touched; reversible."""

from django.db import migrations

# (former, current) pieces of the stored JSON text; the matched text of a question is a single
# word ([\w'-]*), so none of these can stand in it.
PIECES = [
    ("matched seed 004 keyword", "matched the trigger keyword"),
    ("a widening of seed 004's keyword", "a widening of the trigger keyword"),
    ('"seed_keyword":', '"listed_keyword":'),
]


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _rewrite(pairs: list[tuple[str, str]]) -> str:
    """One UPDATE that replaces each `old` with its `new` in the stored choice's JSON text."""
    choice = "(metadata->'protocol_choice')::text"
    rewritten = choice
    for old, new in pairs:
        rewritten = f"replace({rewritten}, {_quoted(old)}, {_quoted(new)})"
    holds_an_old_piece = " OR ".join(f"{choice} LIKE {_quoted('%' + old + '%')}" for old, _ in pairs)
    return (
        "UPDATE debates_debate "
        f"SET metadata = jsonb_set(metadata, '{{protocol_choice}}', ({rewritten})::jsonb) "
        f"WHERE metadata ? 'protocol_choice' AND ({holds_an_old_piece})"
    )


class Migration(migrations.Migration):
    dependencies = [("debates", "0022_help_texts_without_external_references")]

    operations = [
        migrations.RunSQL(
            _rewrite(PIECES),
            _rewrite([(new, old) for old, new in PIECES]),
        ),
    ]
