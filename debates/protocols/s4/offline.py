"""The S4 agents as the offline model plays them: an opening position by question kind and
role, challenges argued from the role's angle, revisions that move when the challenges do."""

from __future__ import annotations

import json

from agents.responders import OfflinePrompt
from debates.protocols.offline import (
    ROLE_ANGLES,
    classify,
    first_sentence,
    initial_position,
    role_key,
)
from debates.protocols.prompting import QUOTED_BLOCK
from debates.protocols.s4.formats import OWN_POSITION, RECEIVED_CHALLENGE, TARGET_POSITION

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


def challenge_reply(offline_prompt: OfflinePrompt) -> str:
    role, prompt = offline_prompt.role, offline_prompt.user
    own = OWN_POSITION.search(prompt)
    target = TARGET_POSITION.search(prompt)
    reasoning = QUOTED_BLOCK.search(prompt)
    if not (own and target):
        return json.dumps(
            {
                "stance": "challenge",
                "argument": "I could not read the position "
                "I was asked to challenge; please restate it.",
                "suggested_decision": "WARN",
            }
        )
    own_decision = own["decision"]
    name, their_decision = target["name"], target["decision"]
    their_conf, their_risk = float(target["confidence"]), float(target["risk"])
    quote = first_sentence(reasoning.group(1) if reasoning else "")
    suggestion = "REFUSE" if own_decision == "VETO" else own_decision
    angle = role_key(role)
    same = CAUTION[own_decision] == CAUTION[their_decision] or (
        {own_decision, their_decision} == {"REFUSE", "VETO"}
    )
    if same:
        argument = (
            f'{name}, you say "{quote}" I reach the same conclusion from my side, where '
            f"{ROLE_ANGLES.get(angle, 'the question is judged on its merits')}; "
            f"I see no flaw that would change {their_decision}."
        )
        return json.dumps(
            {"stance": "agree", "argument": argument, "suggested_decision": suggestion}
        )
    more_cautious = CAUTION[their_decision] > CAUTION[own_decision]
    if angle == "utility" and more_cautious:
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
        {"stance": "challenge", "argument": argument, "suggested_decision": suggestion}
    )


def revision_reply(offline_prompt: OfflinePrompt) -> str:
    prompt = offline_prompt.user
    own = OWN_POSITION.search(prompt)
    if not own:
        return _decision_json(
            "WARN", 50, 50, "I could not read my earlier position; I stay cautious."
        )
    decision, confidence, risk = own["decision"], float(own["confidence"]), float(own["risk"])
    challengers = [
        (c["name"], c["stance"], c["suggestion"]) for c in RECEIVED_CHALLENGE.findall(prompt)
    ]
    suggestions = [s for _, _, s in challengers if s in CAUTION]
    harm_voices = [
        n for n, _, s in challengers if s in ("REFUSE", "VETO") and "safety" in n.lower()
    ]
    harmful = classify(offline_prompt.query_block or "") in ("harmful", "injection")
    # 1. A safety challenge for refusal moves an agent that wanted to act on a harmful question.
    if harm_voices and harmful and decision == "ACT":
        return _decision_json(
            "REFUSE",
            75,
            max(risk, 70),
            f"{harm_voices[0]} raised misuse I had not weighed: what I called general "
            f"information would help someone cause harm. I change from ACT to REFUSE.",
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
            f"from {decision} to {new}.",
        )
    # 3. Otherwise I defend my position, with confidence moved by how it was received.
    agreements = sum(1 for _, stance, _ in challengers if stance == "agree")
    objections = len(challengers) - agreements
    if objections == 0:
        new_conf = min(confidence + 3, 98)
        text = "Every other agent agrees after scrutiny; I keep my position."
    else:
        new_conf = max(confidence - 5, 40)
        who = ", ".join(n for n, stance, _ in challengers if stance == "challenge")
        text = (
            f"{who} challenged me, but no argument changes the core of my assessment; "
            f"I keep {decision} and lower my confidence slightly."
        )
    if decision == "VETO":
        text += " The risk remains above my veto threshold."
    return _decision_json(decision, new_conf, risk, text)


RESPONDERS = {"analysis": analysis_reply, "challenge": challenge_reply, "revision": revision_reply}
