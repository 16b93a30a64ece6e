from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    """Did debate help? Baselines back-filled, agreement with reviewers' verdicts, quality
    scores over many debates, the decision rules replayed, and evaluation runs of labelled
    question sets. Above debates: it reads their rows, debates never import it."""

    name = "evaluation"
    verbose_name = "Evaluation"

    def ready(self):
        """Hand the module that drives runs from the pages the task that takes their steps."""
        from evaluation import driving, tasks

        driving.step_task = tasks.advance_run
