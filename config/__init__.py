import os

# litellm must never fetch its model cost map from the network on import.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from config.celery import app as celery_app  # noqa: E402

__all__ = ("celery_app",)
