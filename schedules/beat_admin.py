"""Celery beat's own tables (periodic tasks, crontabs, intervals, solar and clocked schedules)
are the machinery under "Scheduled debates": analysts never edit them, and a wrong edit stops
every schedule. In the admin they are an operator's section: only superusers and users with the
Operator role see it, operators read-only."""

from __future__ import annotations

from django.apps import apps
from django.contrib import admin
from django_celery_beat import admin as beat_admin
from django_celery_beat import models as beat

from accounts.roles import OPERATOR

SECTION = "Operator: Celery beat internals (edit schedules under Scheduled debates)"

BEAT_MODELS = {
    beat.PeriodicTask: beat_admin.PeriodicTaskAdmin,
    beat.CrontabSchedule: beat_admin.CrontabScheduleAdmin,
    beat.IntervalSchedule: beat_admin.IntervalScheduleAdmin,
    beat.SolarSchedule: beat_admin.SolarScheduleAdmin,
    beat.ClockedSchedule: beat_admin.ClockedScheduleAdmin,
}


def is_operator(user) -> bool:
    """Whether `user` may see the section; remembered on the user object, which lives for one
    request (the admin asks once per model and per permission on every page)."""
    cached = getattr(user, "_beat_operator", None)
    if cached is None:
        cached = bool(
            user.is_active
            and user.is_staff
            and (user.is_superuser or user.groups.filter(name=OPERATOR).exists())
        )
        user._beat_operator = cached
    return cached


class OperatorOnly:
    """Hidden from everyone but superusers and operators; operators may only look."""

    def has_module_permission(self, request):
        return is_operator(request.user)

    def has_view_permission(self, request, obj=None):
        return is_operator(request.user)

    def has_add_permission(self, request, *args):
        return request.user.is_superuser and super().has_add_permission(request, *args)

    def has_change_permission(self, request, obj=None):
        return request.user.is_superuser and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser and super().has_delete_permission(request, obj)


def register() -> None:
    for model, model_admin in BEAT_MODELS.items():
        if admin.site.is_registered(model):
            admin.site.unregister(model)
        admin.site.register(model, type(model_admin.__name__, (OperatorOnly, model_admin), {}))
    apps.get_app_config("django_celery_beat").verbose_name = SECTION
