"""A durable run's task and its two kinds of retry (see `run_retrying`)."""

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import InterfaceError, OperationalError

from runs import lifecycle


def retry_delay(retry: int) -> float:
    """Seconds before a task's `retry`-th retry (1, 2, ...): doubled each time, capped."""
    delay = settings.DEBATE_TASK_RETRY_DELAY * (2 ** (retry - 1))
    return min(delay, settings.DEBATE_TASK_RETRY_MAX_DELAY)


def run_retrying(task, database_retries: int, execute: Callable[..., Any], **ids) -> Any:
    """`execute(may_retry=...)` for a durable run's task (`ids` name the run, as the task takes
    them), with its two kinds of retry. A model that stayed unavailable through a call's
    attempts (`lifecycle.TransientFailure`): retried later, with backoff, at most
    `DEBATE_TASK_MAX_RETRIES` times. A database connection that failed (none could be made, or
    the one held is gone): retried with the same backoff for as long as it takes, counted
    apart in the task's `database_retries`, so it leaves the model's retries whole. An error of
    a statement on a connection that still works is raised."""
    retries = task.request.retries - database_retries  # the model's
    try:
        return execute(may_retry=retries < settings.DEBATE_TASK_MAX_RETRIES)
    except lifecycle.TransientFailure:
        raise task.retry(
            countdown=retry_delay(retries + 1),
            max_retries=settings.DEBATE_TASK_MAX_RETRIES + database_retries,
        ) from None
    except (InterfaceError, OperationalError) as exc:
        if not lifecycle.connection_lost():
            raise
        raise task.retry(
            args=(),
            kwargs={**ids, "database_retries": database_retries + 1},
            countdown=retry_delay(database_retries + 1),
            exc=exc,  # no limit: the task's `max_retries` is None
        ) from None
