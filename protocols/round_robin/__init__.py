"""The round-robin debate of seed 004: specialists take strict turns until they agree."""

from protocols.round_robin.protocol import RoundRobinProtocol

__all__ = ["RoundRobinProtocol"]
