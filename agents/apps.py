from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"
    verbose_name = "Agents"

    def ready(self):
        from agents import checks  # noqa: F401  (registers the system checks)
