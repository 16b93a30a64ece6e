from django.apps import AppConfig


class DebatesConfig(AppConfig):
    name = "debates"
    verbose_name = "Debates"

    def ready(self):
        """Register what lower layers reach through registries: the debate as a review subject,
        and debates as durable work for the sweeper."""
        from debates import runs
        from debates.reviewing.subject import DEBATE
        from debates.services import DEBATES
        from reviews import subjects

        subjects.register(DEBATE)
        runs.register(DEBATES)
