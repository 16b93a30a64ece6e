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


@register()
def check_deadlines(app_configs=None, **kwargs):
    """Deadlines and fallbacks name known reasons; hours are positive numbers; a fallback is
    "machine" or "WARN", and none is set for a failure (it has no machine decision)."""
    errors = []
    hours = settings.REVIEW_DEADLINE_HOURS
    fallbacks = settings.REVIEW_DEADLINE_FALLBACKS
    if not isinstance(hours, dict) or not isinstance(fallbacks, dict):
        return [
            Error(
                "REVIEW_DEADLINE_HOURS and REVIEW_DEADLINE_FALLBACKS are JSON objects.",
                hint='e.g. REVIEW_DEADLINE_HOURS=\'{"safety_veto": 4, "split_vote": 24}\'.',
                id="reviews.E003",
            )
        ]
    unknown = sorted((set(hours) | set(fallbacks)) - set(triage.REASONS))
    if unknown:
        errors.append(
            Error(
                f"REVIEW_DEADLINE_HOURS or REVIEW_DEADLINE_FALLBACKS names unknown reason(s): "
                f"{', '.join(unknown)}.",
                hint=f"Known reasons: {', '.join(triage.REASONS)}.",
                id="reviews.E003",
            )
        )
    bad_hours = sorted(
        r
        for r, h in hours.items()
        if h is not None and (isinstance(h, bool) or not isinstance(h, int | float) or h <= 0)
    )
    if bad_hours:
        errors.append(
            Error(
                f"REVIEW_DEADLINE_HOURS gives no positive number of hours for: "
                f"{', '.join(bad_hours)}.",
                hint="Use a number of hours above 0 (e.g. 4 or 0.5), or leave the reason out.",
                id="reviews.E004",
            )
        )
    bad = sorted(r for r, f in fallbacks.items() if f not in triage.FALLBACKS)
    failures = sorted(set(fallbacks) & set(triage.FAILURE_REASONS))
    if bad or failures:
        errors.append(
            Error(
                "REVIEW_DEADLINE_FALLBACKS: "
                + "; ".join(
                    part
                    for part in (
                        bad and f'{", ".join(bad)} must be "machine" or "WARN"',
                        failures
                        and f"{', '.join(failures)} cannot have one (a failure has no decision)",
                    )
                    if part
                )
                + ".",
                id="reviews.E005",
            )
        )
    return errors


@register()
def check_double_review_share(app_configs=None, **kwargs):
    share = settings.REVIEW_DOUBLE_REVIEW_SHARE
    if 0 <= share <= 1:
        return []
    return [
        Error(
            f"REVIEW_DOUBLE_REVIEW_SHARE={share!r} is not a share.",
            hint="Use a number from 0 (no item is reviewed twice) to 1 (every item is).",
            id="reviews.E006",
        )
    ]
