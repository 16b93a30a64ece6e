"""The S4 debate (docs/concepts/s4.md): analysis, cross-challenges, revision, final vote."""

from protocols.s4.protocol import S4Protocol

__all__ = ["S4Protocol"]
