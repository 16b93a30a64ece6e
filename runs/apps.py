from django.apps import AppConfig


class RunsConfig(AppConfig):
    """The durable-run core shared by debates and contradiction runs: no tables of its own."""

    name = "runs"
    verbose_name = "Durable runs"
