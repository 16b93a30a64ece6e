from django.apps import AppConfig
from django.core import checks
from django.core.exceptions import ImproperlyConfigured


def check_model_routing(app_configs=None, **kwargs):
    """The model groups, routes and fallbacks in the settings make sense (`manage.py check`,
    and every management command that runs checks)."""
    from agents import routing

    try:
        routing.config()
    except ImproperlyConfigured as exc:
        return [checks.Error(str(exc), id="agents.E001")]
    return []


class AgentsConfig(AppConfig):
    name = "agents"
    verbose_name = "Agents"

    def ready(self):
        checks.register(check_model_routing)
