from django.conf import settings
from django.core.checks import Error, register

from reviews import subjects, triage
from reviews.models import ReviewItem


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


def subject_keys() -> list[str]:
    """`ReviewItem`'s subject keys: every foreign key but the assignee."""
    return [
        f.name
        for f in ReviewItem._meta.get_fields()
        if f.many_to_one and f.concrete and f.name != "assignee"
    ]


@register()
def check_subjects(app_configs=None, **kwargs):
    """An item whose subject nobody registered could be neither shown nor acted on."""
    missing = sorted(set(subject_keys()) - {s.name for s in subjects.all_subjects()})
    if not missing:
        return []
    return [
        Error(
            f"No review subject is registered for ReviewItem.{', ReviewItem.'.join(missing)}.",
            hint="The app that owns the subject registers a reviews.subjects.ReviewSubject "
            "with that name from its AppConfig.ready.",
            id="reviews.E002",
        )
    ]
