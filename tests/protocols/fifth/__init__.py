"""A fifth protocol that lives outside `protocols/`, to show that a protocol plugs in: a show of
hands (each agent says YES or NO once; the majority decides). Only the test that registers it
knows it; no file of the service names it."""

from tests.protocols.fifth.protocol import ShowOfHandsProtocol

__all__ = ["ShowOfHandsProtocol"]
