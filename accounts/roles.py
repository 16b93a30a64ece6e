"""The roles staff are given: Django groups holding model permissions.

`is_staff` only lets someone into the admin site; what they may read and do there, over the
API and on the review pages is what their permissions (usually through these groups) allow. The
groups are created by the migration `accounts.0003_roles`; `role_group` (re)creates one with its
permissions, e.g. after a test flushed the database. The matrix is in the README ("Roles").
"""

from __future__ import annotations

REVIEWER = "Reviewer"
AGENT_EDITOR = "Agent editor"
OPERATOR = "Operator"

# role -> "app_label.codename" of each permission it holds
ROLES: dict[str, tuple[str, ...]] = {
    REVIEWER: (
        "reviews.view_reviewitem",
        "reviews.change_reviewitem",
        "reviews.view_reviewevent",
        "debates.view_debate",
        "debates.view_figures",
        "debates.replay_rules",
        "evaluation.view_evaluationrun",
        "evaluation.view_evaluationitem",
        "contradictions.view_contradictionrun",
    ),
    AGENT_EDITOR: (
        "agents.view_agent",
        "agents.add_agent",
        "agents.change_agent",
        "agents.view_agentversion",
    ),
    OPERATOR: (
        "reviews.view_reviewitem",
        "reviews.change_reviewitem",
        "reviews.view_reviewevent",
        "reviews.override_safety_veto",
        "agents.view_agent",
        "agents.change_agent",
        "agents.change_agent_veto",
        "agents.view_agentversion",
        "debates.view_debate",
        "debates.view_figures",
        "debates.replay_rules",
        "evaluation.view_evaluationrun",
        "evaluation.view_evaluationitem",
        "evaluation.add_evaluationrun",
        "contradictions.view_contradictionrun",
        "schedules.view_debateschedule",
        "schedules.add_debateschedule",
        "schedules.change_debateschedule",
        "schedules.delete_debateschedule",
        "schedules.view_schedulerun",
        "audit.view_auditentry",
        "budgets.view_spendinglimit",
        "budgets.add_spendinglimit",
        "budgets.change_spendinglimit",
        "budgets.delete_spendinglimit",
        "budgets.view_usage",
        "budgets.view_counter",
        "budgets.view_charge",
        "budgets.change_charge",
    ),
}


def role_group(name: str):
    """The group for role `name`, with exactly the role's permissions (created if missing)."""
    from django.contrib.auth.models import Group, Permission

    group, _ = Group.objects.get_or_create(name=name)
    wanted = {tuple(perm.split(".")) for perm in ROLES[name]}
    candidates = Permission.objects.filter(codename__in={codename for _, codename in wanted})
    group.permissions.set(
        [
            pk
            for pk, app_label, codename in candidates.values_list(
                "pk", "content_type__app_label", "codename"
            )
            if (app_label, codename) in wanted
        ]
    )
    return group


def grant_roles(user, *names: str) -> None:
    """Put `user` in the groups of the roles `names` (and forget their cached permissions)."""
    user.groups.add(*(role_group(name) for name in names))
    for cache in ("_perm_cache", "_user_perm_cache", "_group_perm_cache"):
        user.__dict__.pop(cache, None)
