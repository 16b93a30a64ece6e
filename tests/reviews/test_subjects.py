"""The review queue reaches its subjects only through the adapters their apps register."""

from __future__ import annotations

from unittest import mock

from reviews import subjects
from reviews.checks import check_subjects, subject_keys


def test_every_subject_key_of_an_item_has_a_registered_subject():
    assert set(subject_keys()) == {"debate", "contradiction", "contradiction_run"}
    assert [s.name for s in subjects.all_subjects()] == [
        "debate",
        "contradiction",
        "contradiction_run",
    ]
    assert check_subjects() == []


def test_a_subject_key_nobody_registered_fails_the_system_check():
    registered = {s.name: s for s in subjects.all_subjects() if s.name != "contradiction_run"}
    with mock.patch.dict(subjects._SUBJECTS, registered, clear=True):
        [error] = check_subjects()
    assert error.id == "reviews.E002"
    assert "ReviewItem.contradiction_run" in error.msg
