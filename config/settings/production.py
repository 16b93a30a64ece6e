"""Production: no default secrets, secure cookies, HTTPS behind a proxy, HSTS.

This is what `wsgi.py`, `asgi.py` and the Celery app load unless DJANGO_SETTINGS_MODULE says
otherwise; only `manage.py` defaults to the local settings."""

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import env
from .envvars import env_bool, env_int, env_site_url

DEBUG = False
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="")
if not SECRET_KEY:
    raise ImproperlyConfigured(
        "DJANGO_SECRET_KEY is not set. Production refuses to start without a secret key."
    )
# Django's own test for a weak key (the check security.W009), as a refusal to start.
if len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5 or SECRET_KEY.startswith("django-insecure-"):
    raise ImproperlyConfigured(
        "DJANGO_SECRET_KEY is too weak: use at least 50 random characters, e.g. the output of "
        "`python -c 'import secrets; print(secrets.token_urlsafe(50))'`."
    )
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS")
# /metrics: a token short enough to guess would hand out the service's figures.
if METRICS_TOKEN and len(METRICS_TOKEN) < 32:  # noqa: F405
    raise ImproperlyConfigured(
        "METRICS_TOKEN is too short: use at least 32 random characters, e.g. the output of "
        "`python -c 'import secrets; print(secrets.token_urlsafe(32))'`."
    )
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
# HSTS: browsers keep to HTTPS for a year, on every subdomain, and the domain may be submitted
# to the browsers' preload list. See the README for the trade-off before a first deployment.
SECURE_HSTS_SECONDS = env_int(
    "DJANGO_SECURE_HSTS_SECONDS", default=31_536_000, maximum=2 * 31_536_000
)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", default=True)
SECURE_CONTENT_TYPE_NOSNIFF = True
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
# Unset: https:// and the first allowed host, when that is one host name (not ".example.org"
# or "*"); else it must be set.
DEBATE_SITE_URL = env_site_url(
    "DEBATE_SITE_URL",
    default=(
        f"https://{ALLOWED_HOSTS[0]}"
        if ALLOWED_HOSTS and ALLOWED_HOSTS[0][:1] not in (".", "*", "")
        else None
    ),
)
# The scripted offline model is a demo: `manage.py check` (and every command that runs checks)
# refuses it as the default model unless this is set (agents.E001).
DEBATE_ALLOW_OFFLINE_MODEL = env_bool("DEBATE_ALLOW_OFFLINE_MODEL", default=False)

# --- Serving: the ASGI server's static files and the stack of bin/serve ------------------------
# The collected static files (`collectstatic`, run by bin/serve) are served by the application
# itself (WhiteNoise, just after the security middleware): their names carry a hash of their
# content, so browsers and proxies may keep them for a year ("immutable"); gzip copies are made
# once, at collection. See docs/operations/production.md.
MIDDLEWARE = [
    *MIDDLEWARE[:1],  # SecurityMiddleware first: the HTTPS redirect and HSTS
    "whitenoise.middleware.WhiteNoiseMiddleware",
    *MIDDLEWARE[1:],
]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "config.staticfiles.HashedStaticFiles"},
}
# Where collectstatic puts them (and the server reads them); the checkout's staticfiles/ unset.
STATIC_ROOT = env.path("DJANGO_STATIC_ROOT", default=str(STATIC_ROOT))
