"""The contradiction fixtures, for the sweeper's tests of contradiction runs."""

from tests.contradictions.conftest import sources  # noqa: F401
