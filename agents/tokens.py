"""The most tokens a prompt can be billed as, known before it is sent (docs: Operations, Spending
limits, "What one call reserves").

A prompt is counted with its model's own tokenizer when the installed litellm ships that
tokenizer (OpenAI's encodings, read from litellm's package: nothing is downloaded), or with the
built-in offline model's own count; for any other model its length in UTF-8 bytes stands in,
which no tokenizer exceeds (every token of a text stands for at least one of its bytes). Either
way (the offline model aside) each message adds `PER_MESSAGE` tokens and each call `PER_CALL`,
for the chat format's own tokens (role markers, separators, the reply's priming), which the
text does not show.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from agents.routing import OFFLINE_PROVIDER

#: The chat format's tokens around each message, and around the whole prompt: more than any
#: provider's template is known to add (OpenAI counts 3 a message and 3 a prompt).
PER_MESSAGE = 16
PER_CALL = 16

# litellm's package holds these encodings (litellm_core_utils/tokenizers, each file named by
# the SHA-1 of its download URL, as tiktoken's cache names it).
_BUNDLED = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}
# Providers whose models are OpenAI's own, so tiktoken's name for a model is the right one.
_OPENAI_PROVIDERS = frozenset({"", "openai", "azure", "azure_ai"})


def _bundle_dir() -> Path | None:
    try:
        from importlib import resources

        import litellm  # noqa: F401 - only to find its package

        return Path(str(resources.files("litellm").joinpath("litellm_core_utils/tokenizers")))
    except (ImportError, AttributeError):  # pragma: no cover - litellm is a dependency
        return None


@functools.cache
def encoding(name: str):
    """The tiktoken encoding `name` read from litellm's package, or None when it is not there
    (tiktoken is then never asked to fetch it)."""
    url = _BUNDLED.get(name)
    folder = _bundle_dir()
    if url is None or folder is None:
        return None
    if not (folder / hashlib.sha1(url.encode()).hexdigest()).is_file():
        return None
    # tiktoken reads an encoding from the folder TIKTOKEN_CACHE_DIR names, checking its hash;
    # litellm points it at its package's folder (unless CUSTOM_TIKTOKEN_CACHE_DIR says
    # otherwise: then the byte length stands in, rather than a download).
    import litellm.litellm_core_utils.default_encoding  # noqa: F401
    import tiktoken

    if os.environ.get("TIKTOKEN_CACHE_DIR") != str(folder):
        return None
    try:
        return tiktoken.get_encoding(name)
    except Exception:  # noqa: BLE001 - a damaged file: count bytes, never fetch
        return None


def encoding_for(model: str):
    """The encoding of an OpenAI model litellm ships (None for any other model)."""
    provider, _, name = model.rpartition("/")
    if provider not in _OPENAI_PROVIDERS or not name:
        return None
    import tiktoken.model

    try:
        found = tiktoken.model.encoding_name_for_model(name)
    except KeyError:
        return None
    return encoding(found)


def offline_tokens(text: str) -> int:
    """What the built-in offline model bills a text as (about four characters a token): its
    tokenizer, so the bound of its prompts is exact."""
    return max(1, len(text) // 4)


def _text(message: Mapping[str, Any]) -> tuple[str, str]:
    return str(message.get("role") or ""), str(message.get("content") or "")


def prompt_bound(model: str, messages: Iterable[Mapping[str, Any]]) -> int:
    """The most tokens `messages` can be billed as by `model`."""
    if model.startswith(f"{OFFLINE_PROVIDER}/"):
        return offline_tokens("".join(_text(m)[1] for m in messages))
    found = encoding_for(model)
    total = PER_CALL
    for message in messages:
        role, content = _text(message)
        if found is not None:
            size = len(found.encode(role, disallowed_special=())) + len(
                found.encode(content, disallowed_special=())
            )
        else:
            size = len(role.encode("utf-8", "surrogatepass")) + len(
                content.encode("utf-8", "surrogatepass")
            )
        total += size + PER_MESSAGE
    return total
