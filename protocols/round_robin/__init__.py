"""The round-robin debate: specialists take strict turns until they agree
(docs/concepts/round-robin.md)."""

from protocols.round_robin.protocol import RoundRobinProtocol

__all__ = ["RoundRobinProtocol"]
