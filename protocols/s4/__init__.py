"""The S4 debate (seeds 000 and 001): analysis, cross-challenges, revision, final vote."""

from protocols.s4.protocol import S4Protocol

__all__ = ["S4Protocol"]
