import unicodedata

from django.core.exceptions import ValidationError


def no_control_characters(value: str) -> None:
    """Names are shown in pages, transcripts, prompts and logs: refuse control characters
    (newlines, NUL, escape sequences) and invisible format characters (bidi overrides,
    zero-width), which would let one name pass for another."""
    found = sorted({f"U+{ord(c):04X}" for c in value if unicodedata.category(c) in ("Cc", "Cf")})
    if found:
        raise ValidationError(
            "Remove the control or invisible characters (%(found)s): use printable text only.",
            code="control_characters",
            params={"found": ", ".join(found)},
        )
