"""Telling reviewers about their items."""

from __future__ import annotations


def overdue(items) -> None:
    """Items that went past their deadline: their assignees are told."""
