"""`moderated_extended`, the moderated debate's phase 2: the debate of `protocol.py` with an
advocate (practical benefits, stakeholders, risk mitigation), a critic (fallacies, missing
evidence, bias) and a refiner (synthesis). A round:
  1. proponent, opponent, advocate and critic speak in parallel; each sees the proposition, the
     earlier rounds' arguments, the refiner's last synthesis and the moderator's open points;
  2. the refiner synthesises this round's four arguments;
  3. the moderator evaluates this round's arguments and the synthesis.
Up to 3 rounds.
"""

from __future__ import annotations

from typing import Any

from protocols.base import Step
from protocols.moderated.protocol import ModeratedProtocol


class ModeratedExtendedProtocol(ModeratedProtocol):
    name = "moderated_extended"
    label = "Moderated, extended: + advocate, critic and refiner (up to 3 rounds)"
    description = (
        "Proponent, opponent, advocate and critic argue in parallel each round; a refiner "
        "synthesises; a moderator evaluates and ends the debate once confident. Decides "
        "SUPPORT, OPPOSE or UNCERTAIN by confidence-weighted argument strength."
    )
    debaters = ("proponent", "opponent", "advocate", "critic")
    roles = ("proponent", "opponent", "advocate", "critic", "refiner", "moderator")
    roles_needed = (
        "one agent for each role: proponent, opponent, advocate, critic, refiner, moderator"
    )
    min_participants = max_participants = 6
    api_example = None
    options_schema: dict[str, Any] = {
        **ModeratedProtocol.options_schema,
        "max_rounds": {**ModeratedProtocol.options_schema["max_rounds"], "default": 3},
    }

    def _arguments_step(self, round_number: int, history: list[dict]):
        name = self.round_name(round_number)
        speakers = [self.by_role[r] for r in self.debaters]
        requests = tuple(self.argument_request(p, round_number, history) for p in speakers)
        results = yield Step(round_number, name, requests, closes_round=False)
        arguments = [
            (round_number, p, results[r.key]) for p, r in zip(speakers, requests, strict=True)
        ]
        request = self.synthesis_request(self.by_role["refiner"], round_number, arguments)
        results = yield Step(round_number, name, (request,), closes_round=False)
        return arguments, results[request.key]
