"""A prompt's bound (`agents.tokens`): never below what a real tokenizer bills for it, whatever
the text (emoji, CJK, long numbers, code), and read offline from litellm's own package."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import tokens
from tests.conftest import ROOT
from tests.support.fake_openai import count_prompt

DENSE = {
    "emoji": "Is it a good idea to invest now? " + "🙂" * 1950,
    "cjk": "现在投资是个好主意吗？" * 180,
    "numbers": " ".join(str(7**n) for n in range(60, 140)),
    "code": "def f(x):\n\treturn {k: [v ** 2 for v in x[k]] for k in x if k != '_'}\n" * 40,
    "mixed": "Ünïcödé ✓ 👩🏽‍💻 ﷽ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 " * 60,
}
ENCODINGS = ["cl100k_base", "o200k_base"]


def messages(text: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": "You are careful."}, {"role": "user", "content": text}]


def billed(encoding: str, text: str) -> int:
    """What OpenAI bills a chat as, with `encoding` (as the fake server counts it)."""
    enc = tokens.encoding(encoding)
    return 3 + sum(
        3
        + len(enc.encode(m["role"], disallowed_special=()))
        + len(enc.encode(m["content"], disallowed_special=()))
        for m in messages(text)
    )


NO_NETWORK = """
import socket
def refuse(*args, **kwargs):
    raise OSError("no network here")
socket.socket.connect = refuse
socket.create_connection = refuse
import django
django.setup()
from agents import tokens
print(len(tokens.encoding("o200k_base").encode("🙂 hello")),
      len(tokens.encoding("cl100k_base").encode("🙂 hello")))
"""


@pytest.mark.slow
def test_the_tokenizers_are_read_from_litellms_package_without_the_network(tmp_path):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    env.pop("TIKTOKEN_CACHE_DIR", None)
    done = subprocess.run(
        [sys.executable, "-c", NO_NETWORK],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "3"]  # o200k reads the emoji as one token
    assert tokens.encoding_for("openai/gpt-4o-mini").name == "o200k_base"
    assert tokens.encoding_for("gpt-4").name == "cl100k_base"
    # Not OpenAI's, or not known by name: the byte length stands in.
    assert tokens.encoding_for("openai/fake-model") is None
    assert tokens.encoding_for("ollama/llama3") is None


@pytest.mark.parametrize("kind", sorted(DENSE))
def test_dense_text_is_bounded_by_its_own_tokenizer_and_by_its_bytes(kind):
    text = DENSE[kind]
    # A model with a tokenizer: its own count, with room for the chat format.
    assert tokens.prompt_bound("openai/gpt-4o-mini", messages(text)) >= billed("o200k_base", text)
    assert tokens.prompt_bound("gpt-4", messages(text)) >= billed("cl100k_base", text)
    # A model with none known: its bytes bound every tokenizer.
    bound = tokens.prompt_bound("openai/fake-model", messages(text))
    assert all(bound >= billed(e, text) for e in ENCODINGS)
    assert bound >= count_prompt("fake-model", messages(text))
    # Where characters / 4 (the old estimate) fell short.
    if kind in ("emoji", "cjk"):
        assert billed("cl100k_base", text) > 2 * (len(text) // 4)


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(exclude_categories=("Cs",)), max_size=400))
def test_any_text_is_bounded_by_its_bytes_for_every_tokenizer(text):
    bound = tokens.prompt_bound("openai/fake-model", messages(text))
    assert all(bound >= billed(e, text) for e in ENCODINGS)


def test_the_offline_models_bound_is_its_own_count():
    text = "Is it raining? " * 10
    assert tokens.prompt_bound("offline/heuristic-demo", messages(text)) == tokens.offline_tokens(
        "You are careful." + text
    )
