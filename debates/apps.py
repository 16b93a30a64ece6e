from django.apps import AppConfig


class DebatesConfig(AppConfig):
    name = "debates"
    verbose_name = "Debates"

    def ready(self):
        from debates.protocols import register_offline_responders

        register_offline_responders()
