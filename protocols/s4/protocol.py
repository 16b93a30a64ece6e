"""The S4 debate (docs/concepts/s4.md): analysis, cross-challenges, revision, final vote.

What each agent sees (docs/concepts/s4.md#what-each-agent-sees):
- round 1: the query only;
- round 2: the query, its own round-1 position and the challenged agent's round-1 position
  and reasoning; every agent challenges every other (n * (n - 1) challenges), compulsorily:
  each names the weakest point of that reasoning and the evidence that would settle it, and says
  apart whether it agrees with the conclusion;
- round 3: the query, its own round-1 position and every challenge made against it;
- round 4: no call; the revised positions are locked as final votes and `rules.decide` turns
  them into the decision.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from protocols.base import (
    MODEL_OPTION,
    Answer,
    CallRequest,
    ChallengeReply,
    DebateProtocol,
    FinalVote,
    Outcome,
    ParticipantSpec,
    ProtocolError,
    Results,
    StatementReply,
    Step,
    StepGenerator,
)
from protocols.framing import cap_confidence, wrap_query_as_data
from protocols.prompting import QUOTE_CLOSE, QUOTE_OPEN, system_message
from protocols.prompting import one_line as _one_line
from protocols.prompting import quoted as _quoted
from protocols.s4 import baselines, offline, rules
from protocols.s4.charts import risk_chart
from protocols.s4.formats import (
    AGREES,
    DISPUTES,
    OWN_POSITION,
    RECEIVED_CHALLENGE,
    TARGET_POSITION,
    position_fields,
)
from protocols.s4.parsing import parse_agent_decision, parse_challenge
from protocols.s4.presentation import S4Presentation

ROUND_NAMES = {
    1: "Initial Analysis",
    2: "Challenge Round",
    3: "Revision Round",
    4: "Final Voting",
}

DECISION_FORMAT = (
    'Reply with one JSON object and nothing else: {"decision": "ACT" | "WARN" | "REFUSE"%s, '
    '"confidence": 0-100, "risk": 0-100, "reasoning": "your explanation"}. '
    "ACT: answer/act on the question. WARN: act, but with explicit caveats. "
    "REFUSE: do not act on it."
)
VETO_FORMAT = ' | "VETO"'
CHALLENGE_FORMAT = (
    'Reply with one JSON object and nothing else: {"agrees_with_conclusion": true | false, '
    '"weakest_point": "the exact words of their reasoning that are weakest", '
    '"evidence_needed": "the evidence that would settle that point", '
    '"argument": "your challenge: why that point is weak, argued from your role", '
    '"suggested_decision": "ACT" | "WARN" | "REFUSE"}.'
)


class S4Protocol(DebateProtocol):
    name = "s4"
    label = "S4: analysis, cross-challenge, revision, vote"
    description = (
        "Utility, Accuracy and Safety analyse independently, challenge each other, revise and "
        "vote; rules decide ACT, WARN or REFUSE, and a Safety VETO means REFUSE."
    )
    decisions = rules.DECISIONS
    min_participants = 2
    max_participants = 6
    #: The veto is what makes S4 safe: one agent must hold it.
    veto_role = "safety"
    roles_needed = (
        "one agent with the role 'safety' that can veto (the Safety Agent); the others any "
        "role (by default Utility and Accuracy)"
    )
    options_schema: dict[str, Any] = {"model": MODEL_OPTION}
    presentation = S4Presentation()
    offline_responders = offline.RESPONDERS
    api_example = {
        "title": "S4 with its three agents",
        "value": {
            "question": "Should we roll out the new billing service on a Friday?",
            "protocol": "s4",
            "agents": ["utility", "accuracy", "safety"],
            "callback_url": "https://receiver.example.org/debate-events",
        },
    }
    agreement_metadata = ("agreement_percentage", 1)
    rules_module = rules
    replayable = True

    @classmethod
    def charts(cls, so_far):
        return [risk_chart(so_far)]

    @classmethod
    def independent_decision(cls, answer: Answer) -> str:
        return baselines.independent_decision(answer)

    @classmethod
    def majority_decision(cls, answers: Sequence[Answer], options: Mapping[str, Any]) -> str:
        return baselines.majority_decision(answers)

    @classmethod
    def replay_decision(cls, votes: Sequence[Answer], options: Mapping[str, Any]) -> str:
        return baselines.majority_decision(votes)

    def __init__(
        self,
        *,
        query: str,
        participants: list[ParticipantSpec],
        complex_query: bool = False,
        options: dict[str, Any] | None = None,
    ):
        self.check_participants(participants)
        if not any(p.role == self.veto_role and p.can_veto for p in participants):
            named = ", ".join(
                f"{p.name} ({p.role}{', can veto' if p.can_veto else ''})" for p in participants
            )
            raise ProtocolError(
                f"S4 needs {self.roles_needed}; got {named}. Add the safety agent "
                f'(e.g. agents: [..., "safety"]) or choose another protocol.'
            )
        self.query = query
        self.participants = list(participants)
        self.by_slug = {p.slug: p for p in participants}
        self.complex_query = complex_query
        self.options = options or {}

    # --- prompts ------------------------------------------------------------------------------

    def system_message(self, p: ParticipantSpec) -> dict[str, str]:
        veto = ()
        if p.can_veto:
            veto = (
                f"You hold a veto: answer VETO when the risk is {p.veto_risk_threshold} or more. "
                "A veto ends the debate with REFUSE, so give your reason.",
            )
        return system_message(p, *veto)

    def _decision_format(self, p: ParticipantSpec) -> str:
        return DECISION_FORMAT % (VETO_FORMAT if p.can_veto else "")

    def analysis_request(self, p: ParticipantSpec) -> CallRequest:
        user = "\n".join(
            [
                "STEP: analysis (round 1 of 4, independent: you do not see the other agents).",
                "The question:",
                wrap_query_as_data(self.query),
                "",
                "Analyse the question from your perspective and take a position.",
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

    def challenge_request(
        self, challenger: ParticipantSpec, challenged: ParticipantSpec, initial: Results
    ) -> CallRequest:
        own = initial[f"r1:{challenger.slug}"]
        theirs = initial[f"r1:{challenged.slug}"]
        user = "\n".join(
            [
                f"STEP: challenge (round 2 of 4). You challenge {challenged.name}.",
                "The question:",
                wrap_query_as_data(self.query),
                "",
                OWN_POSITION.format(**position_fields(own)),
                TARGET_POSITION.format(
                    name=challenged.name, role=challenged.role, **position_fields(theirs)
                ),
                f"{challenged.name}'s reasoning:",
                QUOTE_OPEN,
                _quoted(theirs.reasoning) or "(no reasoning given)",
                QUOTE_CLOSE,
                "",
                f"You must challenge {challenged.name}'s reasoning, even if you reach the same "
                "conclusion: be adversarial and specific. Quote the weakest point of that "
                "reasoning exactly, say why it is weak from your own role, and name the "
                "evidence that would settle it. Say separately whether you agree with "
                f"{challenged.name}'s conclusion ({theirs.decision}); agreeing does not excuse "
                "you from the challenge.",
                CHALLENGE_FORMAT,
            ]
        )
        return CallRequest(
            key=f"r2:{challenger.slug}>{challenged.slug}",
            participant=challenger.slug,
            round_number=2,
            step="challenge",
            messages=(self.system_message(challenger), {"role": "user", "content": user}),
            target=challenged.slug,
        )

    def revision_request(
        self, p: ParticipantSpec, initial: Results, challenges: Results
    ) -> CallRequest:
        own = initial[f"r1:{p.slug}"]
        received = []
        for other in self.participants:
            if other.slug == p.slug:
                continue
            c = challenges[f"r2:{other.slug}>{p.slug}"]
            suggestion = c.suggested_decision or "no decision suggested"
            received.append(
                RECEIVED_CHALLENGE.format(
                    name=other.name,
                    agreement=AGREES if c.agrees_with_conclusion else DISPUTES,
                    suggestion=suggestion,
                    argument=_one_line(c.argument),
                )
            )
        user = "\n".join(
            [
                "STEP: revision (round 3 of 4). Answer the challenges made against you.",
                "The question:",
                wrap_query_as_data(self.query),
                "",
                OWN_POSITION.format(**position_fields(own)),
                "Your round 1 reasoning:",
                QUOTE_OPEN,
                _quoted(own.reasoning) or "(no reasoning given)",
                QUOTE_CLOSE,
                "Challenges against you:",
                *received,
                "",
                "Have the challenges changed your assessment? Be honest. Defend your position, "
                "adjust your confidence and risk, or change your decision, and explain which "
                "challenge moved you or why none did.",
                self._decision_format(p),
            ]
        )
        return CallRequest(
            key=f"r3:{p.slug}",
            participant=p.slug,
            round_number=3,
            step="revision",
            messages=(self.system_message(p), {"role": "user", "content": user}),
            previous_key=f"r1:{p.slug}",
        )

    # --- parsing ------------------------------------------------------------------------------

    def parse(self, request: CallRequest, raw: str) -> StatementReply | ChallengeReply:
        """Turn a reply into the normalised result of one call."""
        if request.step == "challenge":
            c = parse_challenge(raw)
            return ChallengeReply(
                stance=c.stance,
                argument=c.text,
                suggested_decision=c.suggested_decision or "",
                parse_failed=c.parse_failed,
                error=c.error,
                agrees_with_conclusion=c.agrees_with_conclusion,
            )
        p = self.by_slug[request.participant]
        d = parse_agent_decision(raw)
        decision, confidence, notes = d.decision, d.confidence, list(d.notes)
        if not d.parse_failed:
            decision, veto_note = self._apply_veto_power(p, decision, d.risk)
            if veto_note:
                notes.append(veto_note)
            confidence, cap_note = cap_confidence(confidence, complex_query=self.complex_query)
            if cap_note:
                notes.append(cap_note)
        return StatementReply(
            decision=decision,
            confidence=confidence,
            risk=d.risk,
            reasoning=d.reasoning,
            parse_failed=d.parse_failed,
            error=d.error,
            notes=tuple(notes),
        )

    @staticmethod
    def _apply_veto_power(p: ParticipantSpec, decision: str, risk: float) -> tuple[str, str]:
        """The veto belongs to the safety role and fires at risk >= its threshold
        (docs/concepts/s4.md#safety-veto)."""
        if decision == "VETO" and not p.can_veto:
            return "REFUSE", f"{p.name} has no veto power; VETO read as REFUSE"
        if p.can_veto and decision != "VETO" and risk >= p.veto_risk_threshold:
            return "VETO", (
                f"risk {risk:g} is at or above the veto threshold {p.veto_risk_threshold}: "
                f"{decision} becomes VETO"
            )
        if decision == "VETO" and risk < p.veto_risk_threshold:
            return "REFUSE", (
                f"VETO needs risk >= {p.veto_risk_threshold}; risk {risk:g} read as REFUSE"
            )
        return decision, ""

    def final_votes(self, replies: Results, round_number: int) -> tuple[FinalVote, ...]:
        """Each participant's reply of `round_number`, locked as its final vote."""
        votes = []
        for p in self.participants:
            key = f"r{round_number}:{p.slug}"
            reply = replies[key]
            votes.append(
                FinalVote(
                    participant=p.slug,
                    decision=reply.decision,
                    confidence=reply.confidence,
                    risk=reply.risk,
                    reasoning=reply.reasoning,
                    statement_key=key,
                )
            )
        return tuple(votes)

    def decide(
        self, votes: tuple[FinalVote, ...], *, reason: Callable[[FinalVote], str] | None = None
    ) -> rules.Decision:
        """The pure rules over the final votes; `reason` gives the reasoning the rules quote."""
        return rules.decide(
            [
                rules.Vote(
                    agent=self.by_slug[v.participant].name,
                    decision=v.decision,
                    confidence=v.confidence,
                    risk=v.risk,
                    reasoning=reason(v) if reason else v.reasoning,
                )
                for v in votes
            ]
        )

    @staticmethod
    def _vote_reason(vote: FinalVote, first: StatementReply) -> str:
        """A veto kept from round 1 is explained by the harm named then: the revision only
        says the position was kept."""
        if vote.decision == "VETO" and first.decision == "VETO" and first.reasoning.strip():
            return first.reasoning
        return vote.reasoning

    # --- the debate ---------------------------------------------------------------------------

    def run(self) -> StepGenerator:
        ps = self.participants
        initial = yield Step(1, ROUND_NAMES[1], tuple(self.analysis_request(p) for p in ps))
        challenges = yield Step(
            2,
            ROUND_NAMES[2],
            tuple(
                self.challenge_request(a, b, initial) for a in ps for b in ps if a.slug != b.slug
            ),
        )
        revisions = yield Step(
            3, ROUND_NAMES[3], tuple(self.revision_request(p, initial, challenges) for p in ps)
        )
        votes = self.final_votes(revisions, 3)
        decision = self.decide(
            votes, reason=lambda v: self._vote_reason(v, initial[f"r1:{v.participant}"])
        )
        changed = [
            self.by_slug[p.slug].name
            for p in ps
            if revisions[f"r3:{p.slug}"].decision != initial[f"r1:{p.slug}"].decision
        ]
        parse_failures = sorted(
            key for key, r in {**initial, **challenges, **revisions}.items() if r.parse_failed
        )
        return Outcome(
            votes=votes,
            decision=decision,
            final_round_number=4,
            final_round_name=ROUND_NAMES[4],
            extra={"changed_position": changed, "parse_failures": parse_failures},
        )
