"""The review queue's API list writes its items and their debates out directly
(`ReviewItemSerializer.to_representation`, `ReviewDebateSerializer.to_representation`): the
answer is, byte for byte, what DRF's field-by-field representation of the same serializers
gives, for every kind of item; one item's page keeps DRF's own."""

from __future__ import annotations

import pytest
from rest_framework import serializers

from debates.reviewing.serializers import ReviewDebateSerializer
from reviews.api.serializers import ReviewItemSerializer
from tests.reviews.conftest import items_of_every_kind

URL = "/api/v1/reviews/"
FIELD_BY_FIELD = serializers.ModelSerializer.to_representation


@pytest.fixture
def items(staff_user):
    return items_of_every_kind(holder=staff_user)


def _field_by_field(monkeypatch) -> None:
    for serializer in (ReviewItemSerializer, ReviewDebateSerializer):
        monkeypatch.setattr(serializer, "to_representation", FIELD_BY_FIELD)


@pytest.mark.parametrize(
    "params",
    [{"status": "all"}, {"status": "all", "page_size": 2, "page": 2}, {}, {"assignee": "sam"}],
)
def test_the_list_is_what_drfs_representation_gives(staff_api, items, monkeypatch, params):
    ours = staff_api.get(URL, params)
    _field_by_field(monkeypatch)
    drfs = staff_api.get(URL, params)
    assert ours.status_code == drfs.status_code == 200
    assert ours.content == drfs.content
    assert ours.json()["results"]


def test_the_list_shows_every_kind_of_item(staff_api, items):
    results = staff_api.get(URL, {"status": "all"}).json()["results"]
    assert [r["priority"] for r in results] == [90, 70, 70, 60, 40, 10]
    vetoed = results[0]
    assert vetoed["debate"]["question"] == 'Is <b>this</b> & "that" safe?'
    assert (vetoed["debate"]["decision"], vetoed["debate"]["machine_decision"]) == ("REFUSE", "ACT")
    assert vetoed["debate"]["votes"] == {"ACT": 2, "REFUSE": 1, "<odd>": 1}
    assert vetoed["assignee"] == "sam" and vetoed["verdict"] == "override"
    assert vetoed["reasons"][1] == {
        "reason": "low_confidence",
        "label": vetoed["reasons"][1]["label"],
        "summary": "Only 40 % sure",
    }
    assert vetoed["contradiction"] is None and vetoed["contradiction_run"] is None
    assert results[3]["contradiction_run"]["status"] == "failed" and results[3]["debate"] is None
    assert results[4]["contradiction"]["severity"] == "high"
    running = results[5]
    assert running["debate"]["decision"] is None and running["assignee"] is None
    assert running["closed_at"] is None and running["created_at"].endswith("Z")


def test_one_item_is_what_drfs_representation_gives(staff_api, items, monkeypatch):
    for item in items:
        ours = staff_api.get(f"{URL}{item.pk}/")
        _field_by_field(monkeypatch)
        drfs = staff_api.get(f"{URL}{item.pk}/")
        monkeypatch.undo()
        assert ours.status_code == 200
        assert ours.content == drfs.content
        assert "details" in ours.json()


def test_the_list_reads_in_the_same_queries_whatever_the_kinds_of_item(
    staff_api, items, django_assert_num_queries
):
    staff_api.get(URL)  # the token's first use is recorded
    # the token, the user's permissions (2), the count, the page (items with their subjects and
    # holders): none per item
    with django_assert_num_queries(5):
        response = staff_api.get(URL, {"status": "all", "page_size": 100})
    assert len(response.json()["results"]) == 6
