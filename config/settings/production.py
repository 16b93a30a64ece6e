"""Production: no default secrets, secure cookies, HTTPS behind a proxy."""

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import env

DEBUG = False
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="")
if not SECRET_KEY:
    raise ImproperlyConfigured(
        "DJANGO_SECRET_KEY is not set. Production refuses to start without a secret key."
    )
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS")
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=60)
SECURE_CONTENT_TYPE_NOSNIFF = True
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
# The scripted offline model is a demo: `manage.py check` (and every command that runs checks)
# refuses it as the default model unless this is set (agents.E001).
DEBATE_ALLOW_OFFLINE_MODEL = env.bool("DEBATE_ALLOW_OFFLINE_MODEL", default=False)
