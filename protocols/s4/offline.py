"""The S4 agents as the offline model plays them: an opening position by question kind and
role, challenges argued from the role's angle, revisions that move when the challenges do."""

from __future__ import annotations

import json
import re

from agents.responders import OfflinePrompt
from protocols.offline import (
    RULE_NOTE,
    initial_position,
    read_question,
    role_key,
    rule_note,
)
from protocols.prompting import QUOTED_BLOCK
from protocols.s4.formats import (
    AGREES,
    DISPUTES,
    OWN_POSITION,
    RECEIVED_CHALLENGE,
    TARGET_POSITION,
)

CAUTION = {"ACT": 0, "WARN": 1, "REFUSE": 2, "VETO": 3}


def _decision_json(decision: str, confidence: float, risk: float, reasoning: str) -> str:
    return json.dumps(
        {
            "decision": decision,
            "confidence": round(confidence),
            "risk": round(risk),
            "reasoning": reasoning,
        }
    )


def analysis_reply(prompt: OfflinePrompt) -> str:
    query = prompt.query if prompt.query_block is not None else prompt.user
    p = initial_position(prompt.role, query)
    return _decision_json(p.decision, p.confidence, p.risk, p.reasoning)


#: Words that mark a sweeping or unsupported claim: the offline model's "weakest point".
_SWEEPING = (
    "no ",
    "not ",
    "cannot",
    "never",
    "always",
    "immediately",
    "straightforward",
    "well-established",
    "standard",
    "too many",
    "only",
    "any",
    "every",
    "could",
    "general",
    "safe",
    "clear",
    "low risk",
    "risk of",
)

#: What each role asks for to settle a point: (when the target is more cautious than the
#: challenger, when it is less cautious, when they reach the same conclusion).
EVIDENCE_BY_ROLE = {
    "utility": (
        "a concrete way the asker would be misled or hurt by a caveated answer",
        "what the asker would actually do with the answer, and what happens if it is wrong",
        "an example of the asker acting on the answer as given, without further help",
    ),
    "accuracy": (
        "a named, checkable source showing the risk is real rather than assumed",
        "a named, checkable source (a reference work, a dataset, a published figure) "
        "that confirms the claim",
        "the reference you would cite, and whether independent sources agree on it",
    ),
    "safety": (
        "a concrete harm scenario: who is hurt, how, and how likely",
        "evidence that misuse by a vulnerable or hostile asker is implausible here",
        "a check of the edge cases: who could misuse this answer, and how you ruled it out",
    ),
    "default": (
        "the fact that makes the stricter decision necessary",
        "the fact that makes the decision safe to act on",
        "the fact your conclusion rests on, stated so it can be checked",
    ),
}


def weakest_point(reasoning: str, limit: int = 110) -> str:
    """The clause of a reasoning that claims the most on the least support: the first clause
    holding a sweeping word, else the first sentence."""
    text = " ".join(RULE_NOTE.sub("", reasoning).split())
    clauses = [c.strip().rstrip(";") for c in re.split(r"(?<=[.;!?])\s", text)]
    for clause in clauses:
        if len(clause.split()) >= 4 and any(w in f" {clause.lower()} " for w in _SWEEPING):
            return _clip(clause, limit)
    return _clip(clauses[0] if clauses else "", limit)


def _clip(text: str, limit: int) -> str:
    if len(text) > limit:
        text = text[: limit - 3].rsplit(" ", 1)[0] + "..."
    return text


def challenge_reply(offline_prompt: OfflinePrompt) -> str:
    """Every challenge is adversarial and specific (docs/concepts/s4.md#compulsory-challenges),
    names the weakest point of the challenged reasoning and the evidence that would settle it, even
    when the challenger agrees with the conclusion (then `agrees_with_conclusion` is true)."""
    role, prompt = offline_prompt.role, offline_prompt.user
    own = OWN_POSITION.search(prompt)
    target = TARGET_POSITION.search(prompt)
    reasoning = QUOTED_BLOCK.search(prompt)
    if not (own and target):
        return json.dumps(
            {
                "agrees_with_conclusion": False,
                "weakest_point": "(the position could not be read)",
                "evidence_needed": "the position restated, with its reasoning",
                "argument": "I could not read the position "
                "I was asked to challenge; please restate it.",
                "suggested_decision": "WARN",
            }
        )
    own_decision = own["decision"]
    name, their_decision = target["name"], target["decision"]
    their_conf, their_risk = float(target["confidence"]), float(target["risk"])
    quote = weakest_point(reasoning.group(1) if reasoning else "")
    suggestion = "REFUSE" if own_decision == "VETO" else own_decision
    angle = role_key(role)
    same = CAUTION[own_decision] == CAUTION[their_decision] or (
        {own_decision, their_decision} == {"REFUSE", "VETO"}
    )
    more_cautious = CAUTION[their_decision] > CAUTION[own_decision]
    evidence = EVIDENCE_BY_ROLE[angle][2 if same else 0 if more_cautious else 1]
    if same:
        if angle == "utility":
            why = (
                f"that is asserted, not shown; {their_decision} is right only if the asker can "
                "really use the answer as given"
            )
        elif angle == "accuracy":
            why = (
                f"you state it without a source, so a confidence of {their_conf:g} rests on "
                "your word alone"
            )
        elif angle == "safety":
            why = (
                f"risk {their_risk:g} is judged for the average asker; you do not say which "
                "edge cases you ruled out"
            )
        else:
            why = "that is the step your conclusion depends on, and you do not support it"
        argument = (
            f'{name}, I reach {their_decision} too, but not for your reason. You say "{quote}": '
            f"{why}."
        )
    elif angle == "utility" and more_cautious:
        argument = (
            f'{name}, you say "{quote}" That caution has a cost: the asker leaves with '
            f"nothing usable. What specific evidence would you need before moving from "
            f"{their_decision} to {suggestion}, and why is a caveated answer not enough?"
        )
    elif angle == "utility":
        argument = (
            f'{name}, you say "{quote}" Even I would not answer this without conditions; '
            f"at {their_conf:g} confidence you are prioritising action over the asker's "
            f"interest. What makes {their_decision} safe to act on?"
        )
    elif angle == "accuracy" and not more_cautious:
        argument = (
            f'{name}, you say "{quote}" What source backs that up? A confidence of '
            f"{their_conf:g} needs evidence we can check; without it, {their_decision} risks "
            f"giving wrong information just to be helpful. I would say {suggestion}."
        )
    elif angle == "accuracy":
        argument = (
            f'{name}, you say "{quote}" Is that risk documented or assumed? Risk '
            f"{their_risk:g} should rest on evidence; if the facts are checkable, "
            f"{their_decision} may be stricter than the evidence supports."
        )
    elif angle == "safety" and not more_cautious:
        argument = (
            f'{name}, you say "{quote}" You are optimising for the average asker. What about '
            f"misuse and vulnerable people? Risk {their_risk:g} underestimates the edge cases; "
            f"I would say {suggestion}."
        )
    elif angle == "safety":
        argument = (
            f'{name}, you say "{quote}" I see less danger here than you do: risk '
            f"{their_risk:g} seems high for this question. What concrete harm do you expect?"
        )
    else:
        argument = (
            f'{name}, you say "{quote}" I read the question differently and would say '
            f"{suggestion}; what evidence supports {their_decision}?"
        )
    return json.dumps(
        {
            "agrees_with_conclusion": same,
            "weakest_point": quote,
            "evidence_needed": evidence,
            "argument": argument,
            "suggested_decision": suggestion,
        }
    )


def revision_reply(offline_prompt: OfflinePrompt) -> str:
    prompt = offline_prompt.user
    note = rule_note(read_question(offline_prompt.query_block or ""))
    own = OWN_POSITION.search(prompt)
    if not own:
        return _decision_json(
            "WARN", 50, 50, f"I could not read my earlier position; I stay cautious. {note}"
        )
    decision, confidence, risk = own["decision"], float(own["confidence"]), float(own["risk"])
    challengers = [
        (c["name"], c["agreement"], c["suggestion"]) for c in RECEIVED_CHALLENGE.findall(prompt)
    ]
    suggestions = [s for _, _, s in challengers if s in CAUTION]
    harm_voices = [
        n for n, _, s in challengers if s in ("REFUSE", "VETO") and "safety" in n.lower()
    ]
    harmful = read_question(offline_prompt.query_block or "").kind in ("harmful", "injection")
    # 1. A safety challenge for refusal moves an agent that wanted to act on a harmful question.
    if harm_voices and harmful and decision == "ACT":
        return _decision_json(
            "REFUSE",
            75,
            max(risk, 70),
            f"{harm_voices[0]} raised misuse I had not weighed: what I called general "
            f"information would help someone cause harm. I change from ACT to REFUSE. {note}",
        )
    # 2. When every challenger points the same other way and I was not sure, I move.
    if (
        suggestions
        and len(set(suggestions)) == 1
        and len(suggestions) == len(challengers)
        and suggestions[0] != decision
        and confidence < 75
        and decision != "VETO"
    ):
        new = suggestions[0]
        names = " and ".join(n for n, _, _ in challengers)
        new_conf = min(confidence + 13, 90)
        new_risk = max(risk - 8, 0) if CAUTION[new] < CAUTION[decision] else risk + 10
        return _decision_json(
            new,
            new_conf,
            new_risk,
            f"Upon reconsideration, {names} make a valid point. My threshold was rigid for "
            f"a question like this; {new} at {new_conf:g} confidence is justified. I change "
            f"from {decision} to {new}. {note}",
        )
    # 3. Otherwise I defend my position, with confidence moved by how it was received.
    agreements = sum(1 for _, agreement, _ in challengers if agreement == AGREES)
    objections = len(challengers) - agreements
    if objections == 0:
        new_conf = min(confidence + 3, 98)
        text = (
            "Every other agent agrees with my conclusion after challenging my reasoning; the "
            "weak points they named do not change it, so I keep my position."
        )
    else:
        new_conf = max(confidence - 5, 40)
        who = ", ".join(n for n, agreement, _ in challengers if agreement == DISPUTES)
        text = (
            f"{who} challenged me, but no argument changes the core of my assessment; "
            f"I keep {decision} and lower my confidence slightly."
        )
    if decision == "VETO":
        text += " The risk remains above my veto threshold."
    return _decision_json(decision, new_conf, risk, f"{text} {note}")


RESPONDERS = {"analysis": analysis_reply, "challenge": challenge_reply, "revision": revision_reply}
