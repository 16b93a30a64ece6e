"""The moderated debates (docs/concepts/moderated.md).

`moderated` (phase 1): a proponent argues FOR the proposition, an opponent AGAINST it, and a
moderator evaluates each round. One round is three steps, one after the other:
  1. the proponent speaks; it sees the proposition, every earlier argument and the moderator's
     open points;
  2. the opponent speaks; it sees the same plus the proponent's argument of this round;
  3. the moderator evaluates this round's arguments (quality of each side, consensus reached or
     not, open points, confidence 0..1); it also sees its own previous evaluation.
The debate stops when the moderator's confidence exceeds the consensus threshold (0.8), or
after `max_rounds` (2).

`moderated_extended` (phase 2, `extended.py`) adds an advocate, a critic and a refiner.

Either way a round costs three LLM latencies. `rules.decide` (in this package) turns the
arguments and evaluations into SUPPORT / OPPOSE / UNCERTAIN. Replies give confidences on the
0..1 scale; stored statements hold them x100 (0..100) like every other confidence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from protocols.base import (
    MODEL_OPTION,
    Answer,
    CallRequest,
    DebateProtocol,
    OptionError,
    Outcome,
    ParticipantSpec,
    ProtocolError,
    StatementReply,
    Step,
    StepGenerator,
    validate_options,
)
from protocols.framing import cap_confidence, wrap_query_as_data
from protocols.moderated import baselines, offline
from protocols.moderated import rules as moderation_rules
from protocols.moderated.charts import moderator_charts
from protocols.moderated.formats import ARGUMENT, STEP_LINE
from protocols.moderated.parsing import parse_argument, parse_moderation, parse_synthesis
from protocols.moderated.presentation import ModeratedPresentation
from protocols.prompting import clipped, system_message

#: What each debating role is asked to do (docs/concepts/moderated.md#prompt-shapes).
ROLE_BRIEFS = {
    "proponent": (
        "You argue FOR the proposition.",
        "Give the strongest honest argument for the proposition: clear reasoning, specific "
        "evidence, and a direct answer to the counterarguments raised so far.",
    ),
    "opponent": (
        "You argue AGAINST the proposition.",
        "Give the strongest honest counter-argument: challenge the proposition's reasoning, "
        "answer the proponent's evidence and logic point by point, and offer the alternative "
        "view.",
    ),
    "advocate": (
        "You advocate for the practical side of the proposition.",
        "Weigh the practical benefits and real-world applications, the stakeholders and their "
        "concerns, what implementing it would take, and how its risks could be mitigated. Say "
        "which side these practical considerations favour.",
    ),
    "critic": (
        "You are the critic of every position in this debate.",
        "Look for logical fallacies and weak reasoning, claims made without evidence, and bias, "
        "on both sides; suggest a better way to frame the question if there is one. Say which "
        "side's case survives your scrutiny better.",
    ),
}
CHOOSES_SIDE = ("advocate", "critic")

ARGUMENT_FORMAT = (
    'Reply with one JSON object and nothing else: {%s"content": "your argument", '
    '"confidence": 0.0-1.0, "supporting_evidence": ["a specific, checkable piece of evidence", '
    "...]}. Evidence with figures, sources or documented cases weighs more than general "
    "statements; a claim repeated is counted once."
)
SIDE_FIELD = '"side": "SUPPORT" | "OPPOSE" | "NEUTRAL", '
MODERATION_FORMAT = (
    'Reply with one JSON object and nothing else: {"pro_quality": 0.0-1.0, "con_quality": '
    '0.0-1.0, "consensus_reached": true | false, "leaning": "SUPPORT" | "OPPOSE" | "NEUTRAL", '
    '"open_points": ["a point that needs more debate", ...], "confidence": 0.0-1.0, '
    '"summary": "your evaluation"}. pro_quality and con_quality rate the logic, evidence and '
    "reasoning of each side's arguments in this round. confidence is how sure you are that the "
    "debate has settled the question."
)
SYNTHESIS_FORMAT = (
    'Reply with one JSON object and nothing else: {"synthesis": "your synthesis", '
    '"agreements": [...], "disagreements": [...], "resolution_paths": [...], '
    '"open_questions": [...], "confidence": 0.0-1.0}.'
)
SHOWN_ARGUMENT_CHARS = 700


def _unit(value: float) -> str:
    return f"{value:.2f}"


class ModeratedProtocol(DebateProtocol):
    name = "moderated"
    label = "Moderated: proponent, opponent and moderator (up to 2 rounds)"
    description = (
        "A proponent and an opponent argue the proposition; a moderator evaluates each round "
        "and ends the debate once it is confident. Decides SUPPORT, OPPOSE or UNCERTAIN by "
        "confidence-weighted argument strength (more than 1.2x needed)."
    )
    decisions = moderation_rules.DECISIONS
    debaters: tuple[str, ...] = ("proponent", "opponent")
    roles: tuple[str, ...] = ("proponent", "opponent", "moderator")
    roles_needed = "one agent for each role: proponent, opponent, moderator"
    min_participants = max_participants = 3
    options_schema: dict[str, Any] = {
        "max_rounds": {
            "type": "int",
            "default": 2,
            "min": 1,
            "max": 5,
            "description": "Most rounds to run (each: arguments, then the moderator).",
        },
        "consensus_threshold": {
            "type": "float",
            "default": 0.8,
            "min": 0.5,
            "max": 1.0,
            "description": "The debate stops once the moderator's confidence exceeds this "
            "(0..1; 1.0 never stops early).",
        },
        "model": MODEL_OPTION,
    }
    presentation = ModeratedPresentation()
    offline_responders = offline.RESPONDERS
    api_example = {
        "title": "A moderated debate with options",
        "value": {
            "question": "Should city centres be closed to private cars?",
            "protocol": "moderated",
            "agents": ["proponent", "opponent", "moderator"],
            "options": {"max_rounds": 3, "consensus_threshold": 0.85},
        },
    }
    position_noun = "side"
    rules_module = moderation_rules

    @classmethod
    def charts(cls, so_far):
        return moderator_charts(so_far)

    @classmethod
    def independent_decision(cls, answer: Answer) -> str:
        return baselines.independent_decision(answer)

    @classmethod
    def majority_decision(cls, answers: Sequence[Answer], options: Mapping[str, Any]) -> str:
        return baselines.majority_decision(answers, options)

    def __init__(
        self,
        *,
        query: str,
        participants: list[ParticipantSpec],
        complex_query: bool = False,
        options: dict[str, Any] | None = None,
    ):
        by_role: dict[str, ParticipantSpec] = {}
        for p in participants:
            if p.role not in self.roles:
                raise ProtocolError(
                    f"{self.name} takes agents with the roles {', '.join(self.roles)}; "
                    f"{p.name} has the role '{p.role}'."
                )
            if p.role in by_role:
                raise ProtocolError(
                    f"{self.name} takes one agent per role; {by_role[p.role].name} and {p.name} "
                    f"both have the role '{p.role}'."
                )
            by_role[p.role] = p
        missing = [r for r in self.roles if r not in by_role]
        if missing:
            raise ProtocolError(
                f"{self.name} needs one agent for each role: {', '.join(self.roles)}; "
                f"missing: {', '.join(missing)}."
            )
        try:
            self.options = validate_options(self.options_schema, options, protocol=self.name)
        except OptionError as exc:
            raise ProtocolError(str(exc)) from exc
        self.query = query
        self.participants = list(participants)
        self.by_role = by_role
        self.by_slug = {p.slug: p for p in participants}
        self.complex_query = complex_query
        self.max_rounds = self.options["max_rounds"]
        self.threshold = self.options["consensus_threshold"]

    # --- prompts ------------------------------------------------------------------------------

    def _header(self, step: str, round_number: int, brief: str) -> list[str]:
        return [
            STEP_LINE.format(
                step=step, round_number=round_number, max_rounds=self.max_rounds, brief=brief
            ),
            "The proposition:",
            wrap_query_as_data(self.query),
            "",
        ]

    def _argument_lines(
        self, arguments: Sequence[tuple[int, ParticipantSpec, StatementReply]]
    ) -> list[str]:
        lines = []
        for round_number, p, parsed in arguments:
            details = parsed.details
            evidence = details.get("supporting_evidence") or []
            lines.append(
                ARGUMENT.format(
                    round_number=round_number,
                    name=p.name,
                    role=p.role,
                    side=parsed.decision,
                    confidence=_unit(details["confidence_0_1"]),
                    evidence=len(evidence),
                    plural="s" if len(evidence) != 1 else "",
                    text=clipped(parsed.reasoning, SHOWN_ARGUMENT_CHARS) or "(no argument)",
                )
            )
            for item in evidence:
                lines.append(f"  evidence: {clipped(item, 200)}")
        return lines

    def _context(self, history: list[dict], *, upto: int) -> list[str]:
        """Arguments of rounds before `upto`, the last synthesis and the moderator's points."""
        earlier = [a for rnd in history[: upto - 1] for a in rnd["arguments"]]
        if not earlier:
            return ["Previous arguments: none; this is the opening round."]
        lines = ["Previous arguments:", *self._argument_lines(earlier)]
        last = history[upto - 2]
        if last.get("synthesis"):
            lines.append(
                f"The refiner's synthesis of round {upto - 1}: "
                f"{clipped(last['synthesis'].reasoning, SHOWN_ARGUMENT_CHARS)}"
            )
        points = last["moderation"].details.get("open_points") or []
        if points:
            lines.append(f"The moderator's open points after round {upto - 1}:")
            lines.extend(f"- {clipped(point, 200)}" for point in points)
        return lines

    def argument_request(
        self,
        p: ParticipantSpec,
        round_number: int,
        history: list[dict],
        this_round: Sequence[tuple[int, ParticipantSpec, StatementReply]] = (),
    ) -> CallRequest:
        stance, task = ROLE_BRIEFS[p.role]
        lines = self._header("argument", round_number, stance)
        lines += self._context(history, upto=round_number)
        if this_round:
            lines.append(f"This round (round {round_number}) so far:")
            lines += self._argument_lines(this_round)
        lines += [
            "",
            task,
            "Give your confidence in your argument (0.0-1.0). Be factual, logical and "
            "persuasive; do not invent evidence.",
            ARGUMENT_FORMAT % (SIDE_FIELD if p.role in CHOOSES_SIDE else ""),
        ]
        return self._request(p, round_number, "argument", lines)

    def synthesis_request(
        self,
        p: ParticipantSpec,
        round_number: int,
        arguments: list[tuple[int, ParticipantSpec, StatementReply]],
    ) -> CallRequest:
        lines = self._header("synthesis", round_number, "You synthesise this round's arguments.")
        lines += ["Current round arguments:", *self._argument_lines(arguments), ""]
        lines += [
            "Integrate the valid points from every perspective, name where they agree and "
            "disagree, suggest ways to resolve the disagreements, and say what remains open. "
            "Do not take a side.",
            SYNTHESIS_FORMAT,
        ]
        return self._request(p, round_number, "synthesis", lines)

    def moderation_request(
        self,
        p: ParticipantSpec,
        round_number: int,
        arguments: list[tuple[int, ParticipantSpec, StatementReply]],
        synthesis: StatementReply | None,
        previous: StatementReply | None,
    ) -> CallRequest:
        lines = self._header("moderation", round_number, "You moderate this debate.")
        lines += ["Current round arguments:", *self._argument_lines(arguments)]
        if synthesis:
            lines.append(
                f"The refiner's synthesis: {clipped(synthesis.reasoning, SHOWN_ARGUMENT_CHARS)}"
            )
        if previous:
            points = previous.details.get("open_points") or []
            lines.append(
                f"Your previous evaluation (round {round_number - 1}): confidence "
                f"{_unit(previous.details['confidence_0_1'])}, leaning "
                f"{previous.decision}; open points: "
                f"{'; '.join(clipped(x, 200) for x in points) or 'none'}."
            )
        lines += [
            "",
            "Evaluate the quality and strength of each position, whether consensus is reached "
            "or more debate is needed, which points need further exploration, and your overall "
            "confidence in the current understanding. Judge logic, evidence and reasoning, not "
            f"eloquence. The debate ends when your confidence exceeds {self.threshold:g}.",
            MODERATION_FORMAT,
        ]
        return self._request(p, round_number, "moderation", lines)

    def _request(self, p: ParticipantSpec, round_number: int, step: str, lines) -> CallRequest:
        return CallRequest(
            key=f"r{round_number}:{p.slug}",
            participant=p.slug,
            round_number=round_number,
            step=step,
            messages=(system_message(p), {"role": "user", "content": "\n".join(lines)}),
        )

    # --- parsing ------------------------------------------------------------------------------

    def _capped(self, confidence_0_1: float, notes: list[str]) -> float:
        value, note = cap_confidence(confidence_0_1 * 100, complex_query=self.complex_query)
        if note:
            notes.append(note)
        return round(value, 4)

    def parse(self, request: CallRequest, raw: str) -> StatementReply:
        """The stored result of one call: decision (side or leaning), confidence x100, details."""
        p = self.by_slug[request.participant]
        if request.step == "argument":
            a = parse_argument(
                raw, sides=moderation_rules.SIDES if p.role in CHOOSES_SIDE else None
            )
            notes = list(a.notes)
            side = a.side or ("SUPPORT" if p.role == "proponent" else "OPPOSE")
            confidence = self._capped(a.confidence, notes)
            return StatementReply(
                decision=side,
                confidence=confidence,
                risk=None,
                reasoning=a.content,
                parse_failed=a.parse_failed,
                error=a.error,
                notes=tuple(notes),
                details={
                    "side": side,
                    "confidence_0_1": confidence / 100,
                    "role": p.role,
                    "supporting_evidence": list(a.supporting_evidence),
                    "round_number": request.round_number,
                },
            )
        if request.step == "synthesis":
            s = parse_synthesis(raw)
            notes = list(s.notes)
            confidence = self._capped(s.confidence, notes)
            return StatementReply(
                decision="NEUTRAL",
                confidence=confidence,
                risk=None,
                reasoning=s.synthesis,
                parse_failed=s.parse_failed,
                error=s.error,
                notes=tuple(notes),
                details={
                    "confidence_0_1": confidence / 100,
                    "agreements": list(s.agreements),
                    "disagreements": list(s.disagreements),
                    "resolution_paths": list(s.resolution_paths),
                    "open_questions": list(s.open_questions),
                    "round_number": request.round_number,
                },
            )
        if request.step == "moderation":
            m = parse_moderation(raw)
            notes = list(m.notes)
            confidence = self._capped(m.confidence, notes)
            return StatementReply(
                decision=m.leaning,
                confidence=confidence,
                risk=None,
                reasoning=m.summary,
                parse_failed=m.parse_failed,
                error=m.error,
                notes=tuple(notes),
                details={
                    "confidence_0_1": confidence / 100,
                    "pro_quality": m.pro_quality,
                    "con_quality": m.con_quality,
                    "consensus_reached": m.consensus_reached,
                    "open_points": list(m.open_points),
                    "round_number": request.round_number,
                },
            )
        raise ProtocolError(f"{self.name} has no step '{request.step}'")

    # --- the debate ---------------------------------------------------------------------------

    def round_name(self, round_number: int) -> str:
        return f"Debate Round {round_number}"

    def _arguments_step(self, round_number: int, history: list[dict]):
        """Yields the debaters' steps of one round; returns [(round, participant, parsed)]."""
        proponent, opponent = self.by_role["proponent"], self.by_role["opponent"]
        name = self.round_name(round_number)
        first = self.argument_request(proponent, round_number, history)
        results = yield Step(round_number, name, (first,), closes_round=False)
        this_round = [(round_number, proponent, results[first.key])]
        second = self.argument_request(opponent, round_number, history, this_round)
        results = yield Step(round_number, name, (second,), closes_round=False)
        this_round.append((round_number, opponent, results[second.key]))
        return this_round, None

    def run(self) -> StepGenerator:
        history: list[dict] = []
        moderator = self.by_role["moderator"]
        for round_number in range(1, self.max_rounds + 1):
            arguments, synthesis = yield from self._arguments_step(round_number, history)
            previous = history[-1]["moderation"] if history else None
            request = self.moderation_request(
                moderator, round_number, arguments, synthesis, previous
            )
            results = yield Step(round_number, self.round_name(round_number), (request,))
            moderation = results[request.key]
            history.append(
                {"arguments": arguments, "synthesis": synthesis, "moderation": moderation}
            )
            if moderation.details["confidence_0_1"] > self.threshold:
                break
        return self._outcome(history)

    def _outcome(self, history: list[dict]) -> Outcome:
        arguments, evaluations, failures = [], [], []
        for rnd in history:
            for round_number, p, parsed in rnd["arguments"]:
                if parsed.parse_failed:
                    failures.append(f"r{round_number}:{p.slug}")
                arguments.append(
                    moderation_rules.Argument(
                        agent=p.name,
                        role=p.role,
                        side=parsed.decision,
                        round_number=round_number,
                        confidence=parsed.details["confidence_0_1"],
                        supporting_evidence=tuple(parsed.details["supporting_evidence"]),
                    )
                )
            m = rnd["moderation"]
            number = m.details["round_number"]
            for role in ("refiner", "moderator"):
                parsed = rnd["synthesis"] if role == "refiner" else m
                if parsed and parsed.parse_failed:
                    failures.append(f"r{number}:{self.by_role[role].slug}")
            evaluations.append(
                moderation_rules.Evaluation(
                    round_number=number,
                    confidence=m.details["confidence_0_1"],
                    pro_quality=m.details["pro_quality"],
                    con_quality=m.details["con_quality"],
                    consensus_reached=m.details["consensus_reached"],
                    leaning=m.decision,
                    open_points=tuple(m.details["open_points"]),
                )
            )
        decision = moderation_rules.decide(
            arguments,
            evaluations,
            consensus_threshold=self.threshold,
            max_rounds=self.max_rounds,
            parse_failures=failures,
        )
        last = len(history)
        return Outcome(
            votes=(),
            decision=decision,
            final_round_number=last,
            final_round_name=self.round_name(last),
            extra={"protocol_roles": {p.role: p.name for p in self.participants}},
        )
