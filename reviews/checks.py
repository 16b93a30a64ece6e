from django.conf import settings
from django.core.checks import Error, register

from reviews import triage


@register()
def check_enqueue_reasons(app_configs=None, **kwargs):
    """A misspelt reason in REVIEW_ENQUEUE_REASONS would silently queue nothing for it."""
    unknown = sorted(set(settings.REVIEW_ENQUEUE_REASONS) - set(triage.REASONS))
    if not unknown:
        return []
    return [
        Error(
            f"REVIEW_ENQUEUE_REASONS names unknown reason(s): {', '.join(unknown)}.",
            hint=f"Known reasons: {', '.join(triage.REASONS)}.",
            id="reviews.E001",
        )
    ]
