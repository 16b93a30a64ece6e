from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    """Did debate help? Baselines back-filled, agreement with reviewers' verdicts, quality
    scores over many debates, the decision rules replayed, and evaluation runs of labelled
    question sets. Above debates: it reads their rows, debates never import it."""

    name = "evaluation"
    verbose_name = "Evaluation"
