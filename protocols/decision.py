"""What every protocol's decision rules return: one `Decision` type for all of them.

Plain Python. Each rules module (`s4.rules`, `moderated.rules`, `round_robin.rules` ...) names
its own decision set with a subclass that only sets `allowed`, so a decision outside the set is
a bug caught where it is made, and callers import the type from the rules they use
(`rules.Decision`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True)
class Decision:
    """The outcome of a debate: the decision, why, and the audit metadata."""

    #: The decisions the rules may reach (empty: any).
    allowed: ClassVar[tuple[str, ...]] = ()

    decision: str
    reasoning: str
    metadata: dict

    def __post_init__(self) -> None:
        if self.allowed and self.decision not in self.allowed:
            raise ValueError(f"decision must be one of {', '.join(self.allowed)}")

    @property
    def consensus_type(self) -> str:
        """How the decision was reached, as the audit metadata records it."""
        return self.metadata.get("consensus_type") or ""
