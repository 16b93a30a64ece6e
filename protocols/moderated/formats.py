"""The lines of a moderated debate's prompt that its offline responder reads back, written and
read from one template each (see `LineFormat`)."""

from __future__ import annotations

import re

from protocols.prompting import LineFormat

#: The first line of every prompt: the step and the round.
STEP_LINE = LineFormat(
    "STEP: {step} (round {round_number} of at most {max_rounds}). {brief}",
    step=r"\w+",
    round_number=r"\d+",
    max_rounds=r"\d+",
    brief=".*",
)
#: An argument shown to a later speaker: who argued which side, how surely, with how much
#: evidence, and the argument itself, quoted.
ARGUMENT = LineFormat(
    "- Round {round_number}, {name} ({role}, side {side}, confidence {confidence}, "
    "{evidence} evidence item{plural}):\n<<<\n{text}\n>>>",
    flags=re.S,
    round_number=r"\d+",
    role=r"\w+",
    side="SUPPORT|OPPOSE|NEUTRAL",
    confidence=r"[\d.]+",
    evidence=r"\d+",
    plural="s?",
    text=".*?",
)
