"""The offline model's vote: an S4 analysis (the same responder object, so the step keeps one
responder): the independent position an S4 agent opens with."""

from __future__ import annotations

from protocols.s4.offline import analysis_reply

RESPONDERS = {"analysis": analysis_reply}
