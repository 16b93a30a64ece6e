"""How a round-robin debate is shown: turns in speaking order, the consensus check after each
round, and the stances counted in the set the debate used."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from protocols.presentation import (
    DetailList,
    Fact,
    Presentation,
    joined,
    number,
    percent,
)
from protocols.round_robin.rules import STANCE_SETS


class RoundRobinPresentation(Presentation):
    kind_labels = {"turn": "Turn"}
    parse_failures = {
        "turn": "The reply could not be parsed: the turn counts as no stance (ABSTAIN).",
    }
    default_parse_failure = "The reply could not be parsed: it carries no weight."
    text_parse_flag = "  [PARSE FAILURE: counts as no stance]"

    def details(self, statement) -> list:
        found = DetailList()
        if statement.kind == "turn":
            found.add("Responds to", (statement.details or {}).get("responds_to"), inline=True)
        return list(found)

    def tally_order(self, md: Mapping[str, Any], decisions: Sequence[str]) -> list[str]:
        """The stances of the set the debate used (BUY / HOLD / SELL or ACT / WARN / REFUSE)."""
        return list(STANCE_SETS.get(md.get("stance_set")) or decisions)

    def round_checks(self, md: Mapping[str, Any]) -> dict[int, str]:
        checks = {}
        for check in md.get("consensus_by_round") or []:
            counts = joined(f"{n} {s}" for s, n in (check.get("counts") or {}).items())
            outcome = (
                f"reached on {check.get('leading_stance')}"
                if check.get("reached")
                else "not reached"
            )
            checks[check.get("round")] = (
                f"Consensus check: {counts} ({check.get('share', 0):.0%} agree), {outcome}."
            )
        return checks

    def decision_facts(self, debate, md: Mapping[str, Any], tally, participants) -> list[Fact]:
        if md.get("consensus_reached"):
            consensus = f"reached in round {md.get('consensus_round')}"
            if md.get("first_consensus_round") != md.get("consensus_round"):
                consensus += f" (first in round {md.get('first_consensus_round')})"
        else:
            consensus = f"not reached after {md.get('total_rounds')} rounds"
        share = md.get("agreement_share") or 0
        leading = max(
            (md.get("stance_breakdown") or {}).items(), key=lambda kv: kv[1], default=(None, 0)
        )[0]
        participation = md.get("agent_participation") or {}
        order = [a for a in md.get("speaking_order") or [] if a in participation]
        order += [a for a in participation if a not in order]
        facts = []
        if tally:
            facts.append(Fact("Final stances", joined(f"{n} {d}" for d, n in tally if n)))
        facts += [
            Fact("Consensus", consensus),
            Fact(
                "Agreement",
                f"{share:.0%}"
                + (f" on {leading}" if leading else "")
                + f" (needs {md.get('consensus_threshold', 0):.0%})",
            ),
            Fact("Turns per agent", joined(f"{a} {participation[a]}" for a in order)),
            *self._responses(md),
            Fact(
                "Rounds and turns",
                f"{md.get('total_rounds')} rounds, {md.get('total_turns')} "
                f"turns (at least {md.get('min_turns_per_agent')} each, at most "
                f"{md.get('max_rounds')} rounds)",
            ),
            Fact("Max risk", number(md.get("max_risk"))),
            Fact("Average confidence", percent(md.get("avg_confidence"))),
        ]
        if md.get("changed_position"):
            facts.append(Fact("Changed position", joined(md["changed_position"])))
        return facts

    @staticmethod
    def _responses(md: Mapping[str, Any]) -> list[Fact]:
        summary = md.get("agent_responses_summary")
        if not summary:
            return []
        return [
            Fact(
                "Responses",
                f"{summary.get('successful_responses')} of "
                f"{summary.get('total_agents_consulted')} agents readable "
                f"({joined(summary.get('agents_used') or [])})",
            )
        ]

    def text_summary(self, md: Mapping[str, Any]) -> list[str]:
        participation = md.get("agent_participation", {})
        order = md.get("speaking_order") or sorted(participation)
        turns = ", ".join(f"{a} {participation[a]}" for a in order if a in participation)
        if md.get("consensus_reached"):
            consensus = (
                f"reached after round {md.get('consensus_round')} (first in round "
                f"{md.get('first_consensus_round')})"
            )
        else:
            consensus = "not reached"
        breakdown = ", ".join(f"{k} {v}" for k, v in md.get("stance_breakdown", {}).items())
        out = [
            f"  consensus {consensus}; share {md.get('agreement_share', 0):.0%} of agents "
            f"(needs {md.get('consensus_threshold', 0):.0%}); stances {breakdown or 'none'}",
            f"  turns: {turns}; {md.get('total_rounds')} rounds, {md.get('total_turns')} turns "
            f"(at least {md.get('min_turns_per_agent')} each, at most "
            f"{md.get('max_rounds')} rounds)",
        ]
        summary = md.get("agent_responses_summary")
        if summary:
            out.append(
                f"  responses: {summary.get('successful_responses')} of "
                f"{summary.get('total_agents_consulted')} agents readable; debate turns: "
                + ", ".join(
                    f"{p['agent']} {p['debate_turns']}"
                    for p in md.get("final_positions", [])
                    if "debate_turns" in p
                )
            )
        if md.get("changed_position"):
            out.append("  changed position: " + ", ".join(md["changed_position"]))
        return out
