"""The moderated debates of seed 003: `moderated` and its variant `moderated_extended`."""

from protocols.moderated.extended import ModeratedExtendedProtocol
from protocols.moderated.protocol import ModeratedProtocol

__all__ = ["ModeratedExtendedProtocol", "ModeratedProtocol"]
