"""The Celery application. Settings come from Django settings with the CELERY_ prefix."""

import os

from celery import Celery, signals

# Production unless told otherwise: a deployment that forgets the variable must not run with
# debug on and a public key. Local development sets it (manage.py, bin/demo).
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

app = Celery("debates")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.worker_init.connect
def _load_llm_gateway(**kwargs):
    """Import litellm once in the worker's main process, before the pool starts: the first
    debate then does not pay for the import, and prefork children share the loaded module."""
    from agents.gateway import load

    load()
