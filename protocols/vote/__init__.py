"""The vote protocol: independent answers and the S4 decision rules, no debate (1 L)."""

from protocols.vote.protocol import VoteProtocol

__all__ = ["VoteProtocol"]
