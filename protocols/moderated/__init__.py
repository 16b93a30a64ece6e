"""The moderated debates, `moderated` and its variant `moderated_extended`
(docs/concepts/moderated.md)."""

from protocols.moderated.extended import ModeratedExtendedProtocol
from protocols.moderated.protocol import ModeratedProtocol

__all__ = ["ModeratedExtendedProtocol", "ModeratedProtocol"]
