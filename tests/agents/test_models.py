from decimal import Decimal

from agents.gateway import LLMResponse
from debates.models import LLMCall


def test_a_returned_call_sets_exactly_the_fields_bulk_updates_write():
    response = LLMResponse(
        "offline/heuristic-demo", '{"decision": "ACT"}', 10, 4, Decimal("0.001"), 12, 2
    )
    fields = LLMCall.done_fields(response, parsed={"decision": "ACT"}, parse_failed=False, error="")
    assert set(fields) == set(LLMCall.DONE_FIELDS)
    assert fields["status"] == LLMCall.Status.DONE
    assert (fields["tokens_in"], fields["tokens_out"], fields["attempts"]) == (10, 4, 2)
    assert fields["cost_usd"] == Decimal("0.001") and fields["latency_ms"] == 12
