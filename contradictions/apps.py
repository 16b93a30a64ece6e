from django.apps import AppConfig


class ContradictionsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "contradictions"
    verbose_name = "Contradictions"

    def ready(self):
        from contradictions import tasks
        from contradictions.reviewing.subject import CONTRADICTION, RUN
        from contradictions.running import RUNS
        from reviews import subjects
        from runs import lifecycle

        subjects.register(CONTRADICTION)
        subjects.register(RUN)
        lifecycle.register(RUNS)
        RUNS.task = tasks.run_contradictions  # the task module imports `running`, not back
