"""Making replies storable: the escaping is reversible, the copies hold nothing PostgreSQL
refuses, and text without such characters is left alone."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from agents import pg_text

# Any code point, surrogates and NUL included, with backslashes and "u" frequent.
TEXT = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=0, max_codepoint=0x10FFFF),
        st.sampled_from(["\\", "u", "0", "\x00", "\ud800"]),
    )
)


@given(TEXT)
def test_escaping_is_reversible_and_storable(text):
    stored, escaped = pg_text.escape(text)
    assert pg_text.unescape(stored, escaped) == text
    assert not pg_text.has_refused(stored)
    stored.encode("utf-8")  # what psycopg sends


@given(st.text(alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\x00")))
def test_text_without_refused_characters_is_stored_as_it_is(text):
    assert pg_text.escape(text) == (text, False)
    assert pg_text.clean_reply(text) == pg_text.clean_text(text) == text


@given(st.dictionaries(st.text(), st.one_of(TEXT, st.integers())))
def test_values_parsed_from_the_cleaned_copy_are_storable(obj):
    for ensure_ascii in (True, False):
        try:
            sent = json.dumps(obj, ensure_ascii=ensure_ascii)
        except UnicodeEncodeError:
            continue
        parsed = json.loads(pg_text.clean_reply(sent))
        assert set(parsed) == {pg_text.clean_text(k) for k in obj}
        for value in parsed.values():
            assert not (isinstance(value, str) and pg_text.has_refused(value))


def test_json_escapes_of_refused_characters_are_replaced_and_others_kept():
    sent = r'{"a": "x\u0000y \ud83d\ude00 \\u0000 \udc00 \u00e9"}'
    assert json.loads(pg_text.clean_reply(sent)) == {"a": "x\ufffdy \U0001f600 \\u0000 \ufffd é"}
    assert pg_text.escape("a\\b\x00") == ("a\\\\b\\u0000", True)
