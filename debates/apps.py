from django.apps import AppConfig


class DebatesConfig(AppConfig):
    name = "debates"
    verbose_name = "Debates"

    def ready(self):
        from debates.reviewing.subject import DEBATE
        from reviews import subjects

        subjects.register(DEBATE)
