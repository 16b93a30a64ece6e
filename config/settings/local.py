"""Development on one machine: debug on, a fixed non-secret key unless one is given."""

from .base import *  # noqa: F403
from .base import env
from .envvars import env_bool

DEBUG = env_bool("DJANGO_DEBUG", default=True)
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="local-development-key-not-for-production")
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = env_bool("WEBHOOK_ALLOW_PRIVATE_ADDRESSES", default=True)
