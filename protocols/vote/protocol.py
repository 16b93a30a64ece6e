"""The vote protocol: every agent answers the question once, independently, and the S4 decision
rules turn those answers into the decision. No challenges, no revision: one LLM latency (1 L)
and one call per agent, for questions where evaluation shows debate adds nothing."""

from __future__ import annotations

from protocols.base import CallRequest, Outcome, Step, StepGenerator
from protocols.framing import wrap_query_as_data
from protocols.s4 import S4Protocol
from protocols.vote import offline
from protocols.vote.presentation import VotePresentation

ROUND_NAMES = {1: "Independent Votes", 2: "Decision"}


class VoteProtocol(S4Protocol):
    name = "vote"
    label = "Vote: independent answers and the rules, no debate"
    description = (
        "Each agent answers once, without seeing the others; the S4 rules decide ACT, WARN or "
        "REFUSE from those answers (a Safety VETO means REFUSE). One call per agent, no "
        "challenges: the cheap choice where debate does not change the outcome."
    )
    presentation = VotePresentation()
    offline_responders = offline.RESPONDERS
    api_example = None

    def vote_request(self, p) -> CallRequest:
        user = "\n".join(
            [
                "STEP: analysis (the vote: independent, you do not see the other agents).",
                "The question:",
                wrap_query_as_data(self.query),
                "",
                "Analyse the question from your perspective and cast your vote.",
                self._decision_format(p),
            ]
        )
        return CallRequest(
            key=f"r1:{p.slug}",
            participant=p.slug,
            round_number=1,
            step="analysis",
            messages=(self.system_message(p), {"role": "user", "content": user}),
        )

    def run(self) -> StepGenerator:
        ps = self.participants
        answers = yield Step(1, ROUND_NAMES[1], tuple(self.vote_request(p) for p in ps))
        votes = self.final_votes(answers, 1)
        decision = self.decide(votes)
        failures = sorted(k for k, r in answers.items() if r.parse_failed)
        return Outcome(
            votes=votes,
            decision=decision,
            final_round_number=2,
            final_round_name=ROUND_NAMES[2],
            extra={"parse_failures": failures},
        )
