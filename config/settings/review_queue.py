"""The review queue's settings (docs/configuration/index.md), read by `base`."""

import environ

from .envvars import env_bool, env_float, env_int, env_words

env = environ.Env()

# Which reasons put a debate (or run) in front of an analyst (see reviews/triage.py for each).
REVIEW_ENQUEUE_REASONS = env_words(
    "REVIEW_ENQUEUE_REASONS",
    default=[
        "safety_veto",
        "high_risk_dissent",
        "injection_in_reply",
        "prompt_injection",
        "parse_failure",
        "flag_for_review",
        "split_vote",
        "no_consensus",
        "uncertain",
        "low_confidence",
        "debate_failed",
        "run_failed",
        "budget_exceeded",
    ],
)

# Overriding a safety veto to ACT takes holding the item, a note and a confirmation naming what
# the vetoing agent saw. When this is on, the override also takes effect only once a second
# Reviewer, reviewing the item independently, gives the same verdict (docs: review queue).
REVIEW_VETO_OVERRIDE_APPROVAL = env_bool("REVIEW_VETO_OVERRIDE_APPROVAL", default=False)

# The share (0 to 1) of new items drawn for two independent reviews (the second reviewer does
# not see the first verdict; a disagreement goes to adjudication by a third). Every safety veto
# overridden to ACT is reviewed twice too. Agreement figures: /api/v1/reviews/agreement/.
REVIEW_DOUBLE_REVIEW_SHARE = env_float(
    "REVIEW_DOUBLE_REVIEW_SHARE", default=0.10, minimum=0, maximum=1
)

# Review deadlines: hours per reason (JSON), counted from when the item was raised; an item's
# deadline is its reasons' shortest. A reason not named has none. Past it, an item is marked
# overdue (first in the queue, a `review.overdue` webhook, the assignee's email).
REVIEW_DEADLINE_HOURS = env.json(
    "REVIEW_DEADLINE_HOURS",
    default={
        "safety_veto": 4,
        "high_risk_dissent": 4,
        "injection_in_reply": 8,
        "prompt_injection": 8,
        "debate_failed": 8,
        "run_failed": 8,
        "budget_exceeded": 24,
        "parse_failure": 24,
        "flag_for_review": 24,
        "split_vote": 24,
        "no_consensus": 24,
        "uncertain": 48,
        "low_confidence": 48,
    },
)
# Optionally per reason (JSON), what closes an item whose deadline passed (its first reason's
# counts): "machine" (the machine's decision stands) or "WARN" (the decision becomes WARN).
# Recorded as a fallback, never as a reviewer's verdict. A reason not named stays open, overdue.
REVIEW_DEADLINE_FALLBACKS = env.json("REVIEW_DEADLINE_FALLBACKS", default={})
# How often (seconds) beat looks for items past their deadline.
REVIEW_DEADLINE_SWEEP_INTERVAL = env_int("REVIEW_DEADLINE_SWEEP_INTERVAL", default=60, minimum=1)
