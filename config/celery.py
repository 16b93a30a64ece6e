"""The Celery application. Settings come from Django settings with the CELERY_ prefix."""

import gc
import os

from celery import Celery, signals

# Production unless told otherwise: a deployment that forgets the variable must not run with
# debug on and a public key. Local development sets it (manage.py, bin/demo).
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

app = Celery("debates")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def calls_models(worker) -> bool:
    """Whether `worker` reads a queue whose tasks call models (debates, contradiction runs):
    a worker started with no `-Q` reads the default queue only."""
    from django.conf import settings

    queues = worker.app.amqp.queues
    reads = set(queues.consume_from or queues)
    return bool(reads & {settings.TASK_QUEUES["debates"], settings.TASK_QUEUES["contradictions"]})


def _forks_children(worker) -> bool:
    """Whether `worker` runs its tasks in a prefork pool's child processes."""
    from celery.concurrency import get_implementation
    from celery.concurrency.prefork import TaskPool

    pool = get_implementation(worker.pool_cls)
    return isinstance(pool, type) and issubclass(pool, TaskPool)


@signals.worker_init.connect
def _set_up_traces(sender=None, **kwargs):
    """Traces, when OTEL_EXPORTER_OTLP_ENDPOINT is set (`config.tracing`): in the worker's
    process, where its threads run the tasks; a prefork pool's children each set up their own
    after the fork (`_set_up_traces_in_child`), with an exporter of their own."""
    from config import tracing

    if sender is None or not _forks_children(sender):
        tracing.setup("debates-worker")


@signals.worker_process_init.connect
def _set_up_traces_in_child(**kwargs):
    from config import tracing

    tracing.setup("debates-worker")


@signals.worker_process_shutdown.connect
def _send_last_spans(**kwargs):
    """A prefork child exits without running exit handlers: its last spans are sent first."""
    from config import tracing

    tracing.flush()


@signals.worker_init.connect
def _load_llm_gateway(sender=None, **kwargs):
    """In a worker that runs debates or contradiction runs: import litellm once in its main
    process, before the pool starts (the first debate then does not pay for the import, and
    prefork children share the loaded module), after checking that the default model is
    allowed. Workers of webhooks and housekeeping start without it."""
    from django.core import checks
    from django.core.exceptions import ImproperlyConfigured

    from agents.checks import offline_model_not_default
    from agents.litellm_loader import load

    if sender is not None and calls_models(sender):
        if errors := [e for e in offline_model_not_default() if e.level >= checks.ERROR]:
            raise ImproperlyConfigured(f"{errors[0].msg} {errors[0].hint}")
        load()
    # What start-up loaded (Django, litellm: millions of objects that live as long as the
    # process) is left out of the garbage collector's passes from now on; its last pass, at
    # exit, would otherwise walk it all again and hold up a shutdown by seconds.
    gc.freeze()


@signals.task_prerun.connect
def _drop_lost_database_connections(**kwargs):
    """Before each task, close this thread's database connections that are gone (a restarted
    or failed-over PostgreSQL, a session ended by an administrator or a pooler): the task
    then connects again instead of failing on a dead connection
    (`runs.lifecycle.drop_lost_connections`)."""
    from runs.lifecycle import drop_lost_connections

    drop_lost_connections()


@signals.worker_shutting_down.connect
def _hand_on_running_work(**kwargs):
    """On SIGTERM (a warm shutdown) each debate the worker runs stops after the step it is
    in, goes back to queued and is sent again (`runs.lifecycle.stop_point`): the worker exits
    within one model latency, and the next worker resumes the debate from what is stored."""
    from runs.lifecycle import request_stop

    request_stop()


@signals.worker_ready.connect
def _warn_without_beat(sender=None, **kwargs):
    """Say so at start-up when no beat is running: without it nothing recovers lost work."""
    import logging

    from django.db import connection

    from schedules.beat import NO_BEAT_WARNING, beat_is_running

    logger = logging.getLogger("debates.worker")
    try:
        alive = beat_is_running()
    except Exception:  # noqa: BLE001 - a start-up notice must not stop the worker
        logger.warning("Could not tell whether celery beat is running.", exc_info=True)
        return
    finally:
        connection.close()
    if not alive:
        logger.warning(NO_BEAT_WARNING)
