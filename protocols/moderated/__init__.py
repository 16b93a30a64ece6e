"""The moderated debates of seed 003: `moderated` and its variant `moderated_extended`."""

from protocols.moderated.protocol import ModeratedExtendedProtocol, ModeratedProtocol

__all__ = ["ModeratedExtendedProtocol", "ModeratedProtocol"]
