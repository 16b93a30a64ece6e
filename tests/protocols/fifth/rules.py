"""The show of hands' rules: more YES than NO hands is YES, more NO than YES is NO, as many of
each is SPLIT (which goes to review). Plain Python."""

from __future__ import annotations

from collections.abc import Mapping

from protocols import decision

HANDS = ("YES", "NO")
DECISIONS = (*HANDS, "SPLIT")


class HandsDecision(decision.Decision):
    allowed = DECISIONS


def decide(hands: Mapping[str, str]) -> HandsDecision:
    """The decision of each agent's hand (agent -> YES or NO)."""
    yes = sum(hand == "YES" for hand in hands.values())
    no = len(hands) - yes
    outcome = "YES" if yes > no else "NO" if no > yes else "SPLIT"
    return HandsDecision(
        decision=outcome,
        reasoning=f"{yes} YES and {no} NO: {outcome}.",
        metadata={
            "consensus_type": "split" if outcome == "SPLIT" else "majority",
            "hands": {"YES": yes, "NO": no},
            "review_reasons": ["split"] if outcome == "SPLIT" else [],
        },
    )
