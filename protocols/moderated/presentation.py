"""How a moderated debate is shown: arguments with their evidence, the moderator's scores, the
refiner's synthesis, and the weighted strengths that decided. Confidences show on the 0-1
scale the debaters used."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from protocols.presentation import (
    DetailList,
    Fact,
    Presentation,
    joined,
    number,
    percent,
    percent_of_unit,
    unit,
    wrap,
)


def _by_role(values: dict | None, order) -> str:
    """`role -> score`, in the order of the debate's participants (stored JSON objects do not
    keep their order)."""
    values = values or {}
    roles = [r for r in order if r in values] + sorted(set(values) - set(order))
    return joined(f"{role} {values[role]:g}" for role in roles)


class ModeratedPresentation(Presentation):
    kind_labels = {
        "argument": "Argument",
        "moderation": "Moderator's evaluation",
        "synthesis": "Synthesis",
    }
    stance_verbs = {"argument": "argues", "moderation": "leans"}
    sideless_kinds = ("synthesis",)
    default_parse_failure = "The reply could not be parsed: it carries no weight."
    text_parse_flag = "  [PARSE FAILURE: no weight]"

    def details(self, statement) -> list:
        kind, d = statement.kind, statement.details or {}
        found = DetailList()
        if kind == "argument":
            found.add("Evidence", d.get("supporting_evidence"))
        elif kind == "moderation":
            consensus = "reached" if d.get("consensus_reached") else "not reached"
            found.add(
                "Scores",
                [
                    f"pro quality {unit(d.get('pro_quality'))}",
                    f"con quality {unit(d.get('con_quality'))}",
                    f"consensus {consensus}",
                ],
                inline=True,
            )
            found.add("Open points", d.get("open_points"))
        elif kind == "synthesis":
            found.add("Agreements", d.get("agreements"))
            found.add("Disagreements", d.get("disagreements"))
            found.add("Ways to resolve", d.get("resolution_paths"))
            found.add("Open questions", d.get("open_questions"))
        return list(found)

    def decision_facts(self, debate, md: Mapping[str, Any], tally, participants) -> list[Fact]:
        roles = [p.role for p in participants]
        pro, con = md.get("pro_strength") or 0, md.get("con_strength") or 0
        if not (pro and con):
            ratio_text = "one side has no strength"
        elif pro >= con:
            ratio_text = f"pro is {pro / con:.2f}x con"
        else:
            ratio_text = f"con is {con / pro:.2f}x pro"
        stop = (
            "stopped early: the moderator was confident"
            if md.get("stopped_early")
            else "the moderator's confidence decided"
            if md.get("stop_reason") == "moderator_confidence"
            else "every round was run"
        )
        facts = [
            Fact(
                "Weighted strength",
                f"pro {number(pro)}, con {number(con)} ({ratio_text}; "
                f"a side needs more than {md.get('margin_required', 1.2):g}x)" + _exact_note(md),
            ),
            Fact("Decision confidence", percent_of_unit(md.get("decision_confidence"))),
            Fact(
                "Moderator's confidence by round",
                joined(percent_of_unit(c) for c in md.get("moderator_confidence_by_round", []))
                + f" (stops above {percent_of_unit(md.get('consensus_threshold'))})",
            ),
            Fact("Rounds", f"{md.get('rounds_run')} of {md.get('max_rounds')} ({stop})"),
            Fact(
                "Moderator's last leaning",
                f"{md.get('moderator_leaning')} (consensus "
                f"{'reached' if md.get('moderator_consensus_reached') else 'not reached'})",
            ),
            Fact("Evidence quality", _by_role(md.get("evidence_quality"), roles)),
            Fact("Logical consistency", _by_role(md.get("logical_consistency"), roles)),
        ]
        if md.get("open_points"):
            facts.append(Fact("Open points", "; ".join(md["open_points"])))
        return facts

    # --- text transcript ----------------------------------------------------------------------

    def text_statement(self, s) -> list[str]:
        name = f"{s.participant.name:<18}"
        flag = self.text_parse_flag if s.parse_failed else ""
        d = s.details or {}
        if s.kind == "argument":
            out = [
                f"  {name} argues {s.decision:<8} confidence {percent(s.confidence)}{flag}",
                wrap(s.reasoning),
            ]
            out += [
                wrap(f"evidence: {item}", indent="      ")
                for item in d.get("supporting_evidence", [])
            ]
            return out
        if s.kind == "synthesis":
            out = [
                f"  {name} synthesis, confidence {percent(s.confidence)}{flag}",
                wrap(s.reasoning),
            ]
            for label in ("agreements", "disagreements", "resolution_paths", "open_questions"):
                if d.get(label):
                    out.append(
                        wrap(f"{label.replace('_', ' ')}: {'; '.join(d[label])}", indent="      ")
                    )
            return out
        if s.kind == "moderation":
            quality = " / ".join(
                f"{side} {'n/a' if d.get(key) is None else f'{d[key]:.2f}'}"
                for side, key in (("pro", "pro_quality"), ("con", "con_quality"))
            )
            out = [
                f"  {name} evaluates: quality {quality}; leaning {s.decision}; consensus "
                f"{'yes' if d.get('consensus_reached') else 'no'}; confidence "
                f"{percent(s.confidence)}{flag}",
                wrap(s.reasoning),
            ]
            out += [
                wrap(f"open point: {point}", indent="      ") for point in d.get("open_points", [])
            ]
            return out
        return super().text_statement(s)

    def text_summary(self, md: Mapping[str, Any]) -> list[str]:
        ratio = md.get("strength_ratio")
        confidences = ", ".join(
            percent_of_unit(c) for c in md.get("moderator_confidence_by_round", [])
        )
        out = [
            f"  pro strength {md.get('pro_strength')}  con strength {md.get('con_strength')}  "
            f"ratio {'n/a' if ratio is None else ratio} (more than {md.get('margin_required')}x "
            f"needed)  decision confidence {percent_of_unit(md.get('decision_confidence'))}"
            f"{_exact_note(md)}",
            f"  consensus {md.get('consensus_type')}  moderator confidence by round: "
            f"{confidences} (stops above {percent_of_unit(md.get('consensus_threshold'))}); "
            f"{md.get('rounds_run')} of {md.get('max_rounds')} rounds",
        ]
        if md.get("open_points"):
            out.append(wrap("open points: " + "; ".join(md["open_points"]), indent="  "))
        return out


def _exact_note(md: Mapping[str, Any]) -> str:
    """The unrounded strengths the rule compared, when the rounded ones hide a difference."""
    exact = md.get("pro_strength_exact"), md.get("con_strength_exact")
    if None in exact:
        return ""
    shown = (md.get("pro_strength"), md.get("con_strength"))
    if all(float(e) == float(v or 0) for e, v in zip(exact, shown, strict=True)):
        return ""
    return f"; compared unrounded: pro {exact[0]}, con {exact[1]}"
