"""How an S4 debate is shown: its four fixed rounds, its votes and the vote-rule figures."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from protocols.presentation import (
    Fact,
    Presentation,
    joined,
    number,
    percent,
    text_position,
    wrap,
)

VOTE_ORDER = ("ACT", "WARN", "REFUSE", "VETO")
FAIL_SAFE = "The reply could not be parsed: fail-safe REFUSE."


class S4Presentation(Presentation):
    vote_label = "Final vote"
    kind_labels = {"analysis": "Analysis", "revision": "Revision"}
    parse_failures = {"analysis": FAIL_SAFE, "revision": FAIL_SAFE}
    export_final_positions = False

    def decision_facts(self, debate, md: Mapping[str, Any], tally, participants) -> list[Fact]:
        agreement = md.get("agreement_percentage")
        consensus = md.get("consensus_type") or debate.consensus_type
        facts = []
        if tally:
            facts.append(Fact("Votes", joined(f"{n} {d}" for d, n in tally)))
        facts += [
            Fact(
                "Agreement",
                ("n/a" if agreement is None else f"{agreement}%")
                + (f" ({consensus})" if consensus else ""),
            ),
            Fact("Max risk", number(md.get("max_risk"))),
            Fact("Average confidence", percent(md.get("avg_confidence"))),
            Fact("Veto", f"yes, by {md.get('veto_agent')}" if md.get("veto_applied") else "no"),
        ]
        if md.get("changed_position"):
            facts.append(Fact("Changed position", joined(md["changed_position"])))
        return facts

    def decision_notes(self, md: Mapping[str, Any]) -> list[str]:
        votes = md.get("high_risk_votes")
        if not votes:
            return []
        listed = ", ".join(f"{v['agent']} {v['decision']} (risk {v['risk']})" for v in votes)
        return [f"High-risk votes (risk above 75): {listed}"]

    # --- text transcript ----------------------------------------------------------------------

    def text_rounds(self, debate, statements, rounds: Mapping[int, str]) -> list[str]:
        out = [f"\nRound 1: {rounds.get(1, 'Initial Analysis')}"]
        for s in statements:
            if s.kind == "analysis":
                flag = "  [PARSE FAILURE: fail-safe REFUSE]" if s.parse_failed else ""
                out.append(f"  {s.participant.name:<16} {text_position(s)}{flag}")
                out.append(wrap(s.reasoning))

        out.append(f"\nRound 2: {rounds.get(2, 'Challenge Round')}")
        for c in debate.challenges.all():
            agreement = (
                "agrees with the conclusion"
                if c.agrees_with_conclusion
                else "disputes the conclusion"
            )
            out.append(f"  {c.challenger.name} CHALLENGES {c.challenged.name} ({agreement})")
            out += [wrap(line) for line in c.argument.splitlines() if line.strip()]

        out.append(f"\nRound 3: {rounds.get(3, 'Revision Round')}")
        for s in statements:
            if s.kind == "revision":
                change = (
                    f"CHANGED {s.previous_decision} -> {s.decision}"
                    if s.changed_position
                    else f"kept {s.decision}"
                )
                out.append(f"  {s.participant.name:<16} {text_position(s)}  ({change})")
                out.append(wrap(s.reasoning))
                for note in s.notes:
                    out.append(wrap(f"note: {note}", indent="      "))

        out.append(f"\nRound 4: {rounds.get(4, 'Final Voting')}")
        for v in debate.votes.all():
            out.append(f"  {v.participant.name:<16} {text_position(v)}")
        return out

    def text_summary(self, md: Mapping[str, Any]) -> list[str]:
        breakdown = md.get("vote_breakdown", {})
        agreement = md.get("agreement_percentage")
        out = [
            f"  agreement {'n/a' if agreement is None else f'{agreement}%'}  "
            f"consensus {md.get('consensus_type')}  max risk {md.get('max_risk')}  "
            f"avg confidence {percent(md.get('avg_confidence'))}  "
            f"veto {'yes' if md.get('veto_applied') else 'no'}",
            "  votes " + ", ".join(f"{k} {breakdown[k]}" for k in VOTE_ORDER if k in breakdown),
        ]
        if md.get("changed_position"):
            out.append("  changed position: " + ", ".join(md["changed_position"]))
        return out

    # --- JSON export: docs/concepts/s4.md#export-shape ------------------------------------------

    @staticmethod
    def _statement(s) -> dict[str, Any]:
        data = {
            "agent": s.participant.name,
            "decision": s.decision,
            "confidence": s.confidence,
            "risk": s.risk,
            "reasoning": s.reasoning,
        }
        if s.kind == "revision":
            data["before"] = s.previous_decision
            data["after"] = s.decision
            data["changed_position"] = s.changed_position
        if s.parse_failed:
            data["parse_failed"] = True
        if s.notes:
            data["notes"] = s.notes
        return data

    def export_rounds(self, debate, statements, votes: list[dict]) -> list[dict]:
        """Rounds 1-4 with their data: analyses, challenges, revisions, votes."""
        names = {r.number: r.name for r in debate.rounds.all()}
        challenges = [
            {
                "challenger": c.challenger.name,
                "challenged": c.challenged.name,
                "stance": c.stance,
                "agrees_with_conclusion": c.agrees_with_conclusion,
                "argument": c.argument,
                "suggested_decision": c.suggested_decision or None,
                **({"parse_failed": True} if c.parse_failed else {}),
            }
            for c in debate.challenges.all()
        ]
        return [
            {
                "number": 1,
                "name": names.get(1, "Initial Analysis"),
                "data": [self._statement(s) for s in statements if s.kind == "analysis"],
            },
            {"number": 2, "name": names.get(2, "Challenge Round"), "data": challenges},
            {
                "number": 3,
                "name": names.get(3, "Revision Round"),
                "data": [self._statement(s) for s in statements if s.kind == "revision"],
            },
            {"number": 4, "name": names.get(4, "Final Voting"), "votes": votes},
        ]
