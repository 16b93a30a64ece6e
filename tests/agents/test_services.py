"""The one agent validator, shared by the admin and the API."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from agents.admin import AgentForm
from agents.services import agent_protocol_names, agent_protocols_clean


def test_agents_take_part_in_every_protocol_but_the_selector():
    names = agent_protocol_names()
    assert {"s4", "moderated", "round_robin"} <= set(names)
    assert "auto" not in names


@pytest.mark.parametrize("protocol", ["auto", "chess"])
def test_a_protocol_an_agent_cannot_take_part_in_is_refused_with_the_known_ones(protocol):
    with pytest.raises(ValidationError) as refused:
        agent_protocols_clean(["s4", protocol])
    [message] = refused.value.message_dict["protocols"]
    assert message.startswith(f"Unknown protocol(s): {protocol}. Known: s4")


def test_the_admin_refuses_auto_with_the_same_message(db):
    form = AgentForm(
        data={
            "name": "Picker",
            "slug": "picker",
            "role": "utility",
            "position": 0,
            "protocols": "auto",
            "system_prompt": "x",
            "temperature": 0.2,
            "veto_risk_threshold": 50,
        }
    )
    assert not form.is_valid()
    assert form.errors["protocols"] == [
        f"Unknown protocol(s): auto. Known: {', '.join(agent_protocol_names())}."
    ]
