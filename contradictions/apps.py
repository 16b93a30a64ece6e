from django.apps import AppConfig


class ContradictionsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "contradictions"
    verbose_name = "Contradictions"
