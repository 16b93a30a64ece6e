"""Settings shared by every mode. Everything a deployment changes is read from the environment."""

from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import environ
from django.utils.csp import CSP

from .envvars import (
    env_bool,
    env_float,
    env_int,
    env_json_object,
    env_limit,
    env_prices,
    env_rate,
    env_site_url,
)

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
if (BASE_DIR / ".env").exists():
    environ.Env.read_env(BASE_DIR / ".env")

DEBUG = env_bool("DJANGO_DEBUG", default=False)
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="")
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "axes",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "audit",
    "runs",
    "accounts",
    "django_celery_beat",
    "agents",
    "debates",
    "evaluation",
    "reviews",
    "schedules",
    "contradictions",
    "budgets",
    "analytics",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    # Last, as django-axes requires: turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

# --- Logins: failed attempts throttled per account and per address (django-axes) --------------
# After LOGIN_FAILURE_LIMIT failures for one username, or from one address, logins from it are
# refused (429) for LOGIN_LOCKOUT_MINUTES; a success clears the count. Counted in Redis.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "axes.handlers.cache.AxesCacheHandler"
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", default=5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", default=15, minimum=1))
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_CLIENT_IP_CALLABLE = "accounts.ratelimit.client_ip"
# Reverse proxies in front of the service that append to X-Forwarded-For (0: use the peer).
TRUSTED_PROXY_COUNT = env_int("DJANGO_TRUSTED_PROXY_COUNT", default=0, maximum=10)

# Content-Security-Policy: scripts and styles only from this site, or inline with the
# response's nonce (`{{ csp_nonce }}` in templates); no inline event handlers or style
# attributes, no other origins, no framing.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF, "data:"],
    "font-src": [CSP.SELF],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.csp",
            ],
        },
    },
]

DATABASES = {
    "default": env.db("DATABASE_URL", default="postgres://postgres@127.0.0.1:5432/debates"),
}
DATABASES["default"]["CONN_MAX_AGE"] = env_int("DATABASE_CONN_MAX_AGE", default=0)
DATABASES["default"]["ATOMIC_REQUESTS"] = False
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env.str("REDIS_URL", default="redis://127.0.0.1:6379/0")
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "debates",
    }
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
# One date format everywhere (pages and admin): config/formats/en/formats.py.
FORMAT_MODULE_PATH = ["config.formats"]
TIME_ZONE = env.str("DJANGO_TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# Project-wide static files: vendored JavaScript libraries (static/vendor/, each with its licence).
STATICFILES_DIRS = [BASE_DIR / "static"]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "login"

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "EXCEPTION_HANDLER": "api.errors.api_exception_handler",
    "DEFAULT_PARSER_CLASSES": [
        "api.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Debate service API",
    "DESCRIPTION": (
        "Start debates between LLM agents, follow them, read their transcripts and decisions. "
        "Authenticate with `Authorization: Bearer <token>`."
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI comes from drf-spectacular-sidecar's static files: no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "DebateStatusEnum": "debates.models.Debate.Status",
        "ProtocolEnum": "debates.api.serializers.PROTOCOL_NAMES",
        "HealthStatusEnum": "api.health.HEALTH_STATUSES",
        "ReviewItemStatusEnum": "reviews.models.ReviewItem.Status",
        "ReviewReasonEnum": "reviews.models.ReviewItem.Reason",
        "ReviewQueueStatusEnum": "reviews.api.serializers.QUEUE_STATUSES",
        "OutcomeChangeEnum": "protocols.evaluation.CHANGES",
        "VerdictEffectEnum": "protocols.evaluation.EFFECTS",
    },
}
# Debates one user may start per period, counted in Redis across all web processes.
DEBATE_API_CREATE_RATE = env_rate("DEBATE_API_CREATE_RATE", default="30/minute")
# The most debates one `POST /api/v1/debates/batch/` may start (each counts against the rate).
DEBATE_API_BATCH_MAX = env_int("DEBATE_API_BATCH_MAX", default=100, minimum=1, maximum=10_000)
# Webhooks: callback URLs that resolve to private, loopback or link-local addresses are refused
# unless this is on (local development and tests, where the receiver runs on this machine).
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = env_bool("WEBHOOK_ALLOW_PRIVATE_ADDRESSES", default=False)
WEBHOOK_TIMEOUT = env_float("WEBHOOK_TIMEOUT", default=10.0, above=True, maximum=300)
# Replays of the decision rules one user may run (POST /api/v1/evaluation/replay/: each reads
# every stored debate of a protocol), counted like debate starts.
EVALUATION_REPLAY_RATE = env_rate("EVALUATION_REPLAY_RATE", default="6/minute")
# Test pings one user may send (POST /api/v1/webhooks/ping/), counted like debate starts.
WEBHOOK_PING_RATE = env_rate("WEBHOOK_PING_RATE", default="10/minute")
# The site's public base URL (scheme and host, no path): webhook events carry absolute links
# built from it. Production requires it; a value with a path, a query or another scheme is a
# start-up error.
DEBATE_SITE_URL = env_site_url("DEBATE_SITE_URL", default="http://127.0.0.1:8000")
# A CA bundle (path) to verify https receivers with, e.g. a private CA; empty: the usual CAs.
WEBHOOK_CA_BUNDLE = env.str("WEBHOOK_CA_BUNDLE", default="")
WEBHOOK_MAX_ATTEMPTS = env_int("WEBHOOK_MAX_ATTEMPTS", default=6, minimum=1, maximum=100)
WEBHOOK_RETRY_BASE_DELAY = env_float("WEBHOOK_RETRY_BASE_DELAY", default=10.0, above=True)
WEBHOOK_RETRY_MAX_DELAY = env_float("WEBHOOK_RETRY_MAX_DELAY", default=600.0, above=True)
HEALTH_CHECK_TIMEOUT = env_float("HEALTH_CHECK_TIMEOUT", default=1.0, above=True, maximum=60)

# --- Operators' metrics (/metrics, see README "Metrics") ----------------------------------------
# The bearer token Prometheus sends; empty: only signed-in staff can read the endpoint.
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
# Seconds the figures read from PostgreSQL and Redis are reused (shared by every web process
# through the cache), and the same for the slower evaluation figures (ground truth, costs).
METRICS_CACHE_SECONDS = env_int("METRICS_CACHE_SECONDS", default=30)
METRICS_EVALUATION_CACHE_SECONDS = env_int("METRICS_EVALUATION_CACHE_SECONDS", default=300)
# Each source's queries are cut off after this many seconds (PostgreSQL statement_timeout).
METRICS_QUERY_TIMEOUT = env_float("METRICS_QUERY_TIMEOUT", default=10.0, above=True)

# --- Celery -----------------------------------------------------------------------------------
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=REDIS_URL)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TIMEZONE = TIME_ZONE
# A debate is acknowledged only once it has run; a worker that dies mid-debate hands it back.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# The queue of tasks not routed to a queue of their own (CELERY_TASK_ROUTES, below);
# deployments sharing one Redis database name their own.
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_TASK_DEFAULT_QUEUE", default="celery")
# A debate is three LLM latencies when healthy; the limits leave room for retries and slow models.
CELERY_TASK_SOFT_TIME_LIMIT = env_int("DEBATE_TASK_SOFT_TIME_LIMIT", default=600, minimum=1)
CELERY_TASK_TIME_LIMIT = env_int(
    "DEBATE_TASK_TIME_LIMIT", default=660, minimum=CELERY_TASK_SOFT_TIME_LIMIT + 1
)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    # Must exceed the hard time limit, or Redis hands a running debate to a second worker.
    "visibility_timeout": env_int(
        "CELERY_VISIBILITY_TIMEOUT", default=3600, minimum=CELERY_TASK_TIME_LIMIT + 1
    ),
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# The worker's default pool: debates wait on LLM calls, so threads (many debates at once in one
# process, one copy of the code in memory) suit them better than prefork (one debate per
# process). Figures in the README's performance section. `celery worker -P prefork` still works.
CELERY_WORKER_POOL = env.str("CELERY_WORKER_POOL", default="threads")
CELERY_WORKER_CONCURRENCY = env_int("CELERY_WORKER_CONCURRENCY", default=32, minimum=1)
# Keep a task thread's PostgreSQL connection across tasks (Celery's Django fixup otherwise
# closes it after every task, and each debate pays for a new backend): closed every N tasks.
CELERY_DB_REUSE_MAX = env_int("CELERY_DB_REUSE_MAX", default=1000, minimum=1)
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Beat reads its schedule from the database (edited in the admin, picked up without a restart)
# and refuses to start while another beat holds the lock: exactly one beat per database.
CELERY_BEAT_SCHEDULER = "schedules.beat:SingleBeatScheduler"

# --- Queues: each kind of task on a queue of its own ------------------------------------------
# Debates, contradiction runs, webhook deliveries and housekeeping (the sweeper, scheduled
# firings) go to queues of their own, read by workers of their own (bin/serve starts one per
# queue), so a flood of one kind (retries to a webhook receiver that is down, a burst of
# contradiction runs) never holds up another. Deployments sharing one broker keep their queues
# apart with TASK_QUEUE_PREFIX ("staging-": staging-debates, ...). A task not routed here goes
# to CELERY_TASK_DEFAULT_QUEUE, which the housekeeping worker reads too. A worker started
# without -Q reads every queue (local development, bin/demo).
TASK_QUEUE_PREFIX = env.str("TASK_QUEUE_PREFIX", default="")
TASK_QUEUES = {
    kind: f"{TASK_QUEUE_PREFIX}{kind}"
    for kind in ("debates", "contradictions", "webhooks", "housekeeping")
}
CELERY_TASK_QUEUES = {name: {} for name in (CELERY_TASK_DEFAULT_QUEUE, *TASK_QUEUES.values())}
CELERY_TASK_ROUTES = {
    "debates.run_debate": {"queue": TASK_QUEUES["debates"]},
    "contradictions.run": {"queue": TASK_QUEUES["contradictions"]},
    "debates.deliver_webhook": {"queue": TASK_QUEUES["webhooks"]},
    "debates.recover_stuck_debates": {"queue": TASK_QUEUES["housekeeping"]},
    "schedules.fire_schedule": {"queue": TASK_QUEUES["housekeeping"]},
    "reviews.sweep_deadlines": {"queue": TASK_QUEUES["housekeeping"]},
    "evaluation.advance_run": {"queue": TASK_QUEUES["housekeeping"]},
    "evaluation.sweep_runs": {"queue": TASK_QUEUES["housekeeping"]},
}

# --- Recovery: debates stuck because a worker died or the broker lost its queue ---------------
# Every DEBATE_SWEEP_INTERVAL seconds the sweeper (run by beat: exactly one beat) re-enqueues
# debates (and contradiction runs: the same settings) queued for longer than
# DEBATE_QUEUED_DEADLINE (or DEBATE_LOST_QUEUE_GRACE when the broker holds fewer messages than
# there are queued rows: it lost its queue), and those running whose heartbeat is older than
# DEBATE_HEARTBEAT_TIMEOUT and whose advisory lock no live runner holds (the lock ends with a
# dead runner's database connection). Runners move their heartbeat on as they store results, at
# most every DEBATE_HEARTBEAT_INTERVAL seconds. Worst case after a worker dies: heartbeat
# timeout + sweep interval (60 s by default), then the debate's remaining calls.
DEBATE_SWEEP_INTERVAL = env_int("DEBATE_SWEEP_INTERVAL", default=30, minimum=1)
DEBATE_QUEUED_DEADLINE = env_int("DEBATE_QUEUED_DEADLINE", default=300, minimum=1)
DEBATE_LOST_QUEUE_GRACE = env_int("DEBATE_LOST_QUEUE_GRACE", default=30, minimum=1)
DEBATE_HEARTBEAT_TIMEOUT = env_int("DEBATE_HEARTBEAT_TIMEOUT", default=30, minimum=1)
# A heartbeat moves on more often than it is judged stale.
DEBATE_HEARTBEAT_INTERVAL = env_float(
    "DEBATE_HEARTBEAT_INTERVAL", default=10.0, above=True, maximum=DEBATE_HEARTBEAT_TIMEOUT / 2
)
# After this many re-enqueues the sweeper marks the debate (run) failed and queues a review.
DEBATE_MAX_RECOVERIES = env_int("DEBATE_MAX_RECOVERIES", default=3, minimum=1)
# A debate whose worker died this many times (e.g. killed for memory) is not started again.
DEBATE_MAX_ATTEMPTS = env_int("DEBATE_MAX_ATTEMPTS", default=5, minimum=1)
CELERY_BEAT_SCHEDULE = {
    "recover-stuck-debates": {
        "task": "debates.recover_stuck_debates",
        "schedule": float(DEBATE_SWEEP_INTERVAL),
        # A sweep nobody picked up in time is dropped: the next one does the same work.
        "options": {"expire_seconds": DEBATE_SWEEP_INTERVAL},
    },
}

# --- Debates and the LLM gateway --------------------------------------------------------------
# A litellm model string ("openai/gpt-4o-mini", "anthropic/...", "ollama/llama3"); the built-in
# offline heuristic demo model needs no key and no network.
DEBATE_DEFAULT_MODEL = env.str("DEBATE_DEFAULT_MODEL", default="offline/heuristic-demo")
# The protocol of a debate or a schedule when none is chosen (checked against the registry when
# Django starts).
DEBATE_DEFAULT_PROTOCOL = env.str("DEBATE_DEFAULT_PROTOCOL", default="s4")
# What `auto` picks for a question without a debate trigger keyword: s4, or vote (no debate).
DEBATE_AUTO_FALLBACK = env.str("DEBATE_AUTO_FALLBACK", default="s4")
# Production settings turn this off: the offline model may then not be the default (a system
# check error says how to set a real model).
DEBATE_ALLOW_OFFLINE_MODEL = env_bool("DEBATE_ALLOW_OFFLINE_MODEL", default=True)
DEBATE_LLM_TIMEOUT = env_float("DEBATE_LLM_TIMEOUT", default=60.0, above=True)
DEBATE_LLM_MAX_RETRIES = env_int("DEBATE_LLM_MAX_RETRIES", default=3, maximum=20)
DEBATE_LLM_RETRY_BASE_DELAY = env_float("DEBATE_LLM_RETRY_BASE_DELAY", default=1.0)
# A debate (contradiction run) whose call stayed unavailable through its bounded attempts is
# retried by its task later (Celery's retry, from what is stored), up to DEBATE_TASK_MAX_RETRIES
# times, after DEBATE_TASK_RETRY_DELAY seconds doubled each time (capped at
# DEBATE_TASK_RETRY_MAX_DELAY); after that, or on a permanent error, it fails into review.
DEBATE_TASK_MAX_RETRIES = env_int("DEBATE_TASK_MAX_RETRIES", default=5, maximum=100)
DEBATE_TASK_RETRY_DELAY = env_float("DEBATE_TASK_RETRY_DELAY", default=10.0, above=True)
DEBATE_TASK_RETRY_MAX_DELAY = env_float("DEBATE_TASK_RETRY_MAX_DELAY", default=120.0, above=True)
# Simulated latency of the offline model, in seconds (benchmarks and live demos).
DEBATE_OFFLINE_LATENCY = env_float("DEBATE_OFFLINE_LATENCY", default=0.0, maximum=600)
DEBATE_MAX_CONCURRENT_CALLS = env_int("DEBATE_MAX_CONCURRENT_CALLS", default=8, minimum=1)
# The most LLM calls one process has in flight at once (every debate it runs together; they
# are coroutines on one event loop, `agents.calls_loop`); more wait for a free place.
DEBATE_LLM_MAX_IN_FLIGHT = env_int("DEBATE_LLM_MAX_IN_FLIGHT", default=256, minimum=1)
# Statements are sent with their values apart from the SQL (server-side binding), and a
# statement a connection runs a second time is prepared: parsed and planned once per
# connection (psycopg's `prepare_threshold`); the statements that start a debate's steps and
# store its replies are prepared on their first run. Behind a pooler that does not keep
# prepared statements (PgBouncer before 1.21 in transaction mode, or without
# max_prepared_statements), set it to false: values are then quoted into the SQL and nothing
# is prepared, as Django does by default.
DEBATE_PREPARED_STATEMENTS = env_bool("DEBATE_PREPARED_STATEMENTS", default=True)
if DEBATE_PREPARED_STATEMENTS:
    DATABASES["default"]["OPTIONS"] = {
        **DATABASES["default"].get("OPTIONS", {}),
        "server_side_binding": True,
        "prepare_threshold": 1,
    }

# --- Spending limits (budgets/) ---------------------------------------------------------------
# Defaults for every user and API token; staff set other limits per user or token in the admin
# (Budgets > Spending limits). Empty: no limit. Days and months are counted in TIME_ZONE.
BUDGET_USER_DAILY_COST_USD = env_limit("BUDGET_USER_DAILY_COST_USD", default="5", kind=Decimal)
BUDGET_USER_MONTHLY_COST_USD = env_limit("BUDGET_USER_MONTHLY_COST_USD", default="50", kind=Decimal)
BUDGET_USER_DAILY_TOKENS = env_limit("BUDGET_USER_DAILY_TOKENS", default="2000000")
BUDGET_USER_MONTHLY_TOKENS = env_limit("BUDGET_USER_MONTHLY_TOKENS", default="20000000")
BUDGET_TOKEN_DAILY_COST_USD = env_limit("BUDGET_TOKEN_DAILY_COST_USD", kind=Decimal)
BUDGET_TOKEN_MONTHLY_COST_USD = env_limit("BUDGET_TOKEN_MONTHLY_COST_USD", kind=Decimal)
BUDGET_TOKEN_DAILY_TOKENS = env_limit("BUDGET_TOKEN_DAILY_TOKENS")
BUDGET_TOKEN_MONTHLY_TOKENS = env_limit("BUDGET_TOKEN_MONTHLY_TOKENS")
# The whole installation, every caller together (the admin's "installation" limit overrides).
BUDGET_GLOBAL_DAILY_COST_USD = env_limit(
    "BUDGET_GLOBAL_DAILY_COST_USD", default="100", kind=Decimal
)
BUDGET_GLOBAL_DAILY_TOKENS = env_limit("BUDGET_GLOBAL_DAILY_TOKENS")
# One debate or contradiction run: calls made (a call's retries included), the most tokens one
# reply may use (sent to the model as max_tokens), the tokens it may use in all (prompts and
# replies) and its total cost. A debate is admitted only when this much (its cost bounded by its
# tokens at the dearest price it may reach) fits every account limit, and holds it while it runs.
BUDGET_DEBATE_MAX_CALLS = env_limit("BUDGET_DEBATE_MAX_CALLS", default="100")
BUDGET_DEBATE_MAX_TOKENS_PER_CALL = env_limit("BUDGET_DEBATE_MAX_TOKENS_PER_CALL", default="4096")
BUDGET_DEBATE_MAX_TOKENS = env_limit("BUDGET_DEBATE_MAX_TOKENS", default="250000")
BUDGET_DEBATE_MAX_COST_USD = env_limit("BUDGET_DEBATE_MAX_COST_USD", default="2", kind=Decimal)
# Prices litellm does not know (or to override it), USD per million tokens, as JSON:
# {"openai/my-model": {"input": 0.15, "output": 0.60}}. Deployments may also carry litellm's
# input_cost_per_token / output_cost_per_token in DEBATE_MODEL_GROUPS.
BUDGET_MODEL_PRICES = env_prices("BUDGET_MODEL_PRICES")
# A reservation whose worker died before settling it is released after this many seconds.
BUDGET_HOLD_TIMEOUT = env_int("BUDGET_HOLD_TIMEOUT", default=900, minimum=60)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("DJANGO_LOG_LEVEL", default="INFO")},
    "loggers": {"LiteLLM": {"level": "WARNING"}, "httpx": {"level": "WARNING"}},
}

# --- Review queue (config/settings/review_queue.py) ---------------------------------------------
from .review_queue import *  # noqa: E402, F403
from .review_queue import REVIEW_DEADLINE_SWEEP_INTERVAL  # noqa: E402

# Evaluation runs started from the pages whose steps stopped (a worker died) are sent a step
# again (evaluation/driving.py).
CELERY_BEAT_SCHEDULE["evaluation-runs"] = {
    "task": "evaluation.sweep_runs",
    "schedule": 60.0,
    "options": {"expire_seconds": 60},
}
CELERY_BEAT_SCHEDULE["review-deadlines"] = {
    "task": "reviews.sweep_deadlines",
    "schedule": float(REVIEW_DEADLINE_SWEEP_INTERVAL),
    "options": {"expire_seconds": REVIEW_DEADLINE_SWEEP_INTERVAL},
}

# --- Contradictions (docs/configuration/index.md#contradictions) ------------------------------
# Detection: values more than this far apart (relative to the larger) conflict; the same claim
# at confidences this far apart is contested. Arbitrations below CONTRADICTION_MIN_CONFIDENCE go
# to review. Each may also be set per run.
CONTRADICTION_VALUE_THRESHOLD = str(
    env_float("CONTRADICTION_VALUE_THRESHOLD", default=0.05, maximum=1)
)
CONTRADICTION_CONFIDENCE_GAP = env_float("CONTRADICTION_CONFIDENCE_GAP", default=0.3, maximum=1)
CONTRADICTION_MIN_CONFIDENCE = env_float("CONTRADICTION_MIN_CONFIDENCE", default=0.6, maximum=1)
# The arbitrator's model; empty: DEBATE_DEFAULT_MODEL.
CONTRADICTION_ARBITRATOR_MODEL = env.str("CONTRADICTION_ARBITRATOR_MODEL", default="")
CONTRADICTION_MAX_REPORTS = env_int("CONTRADICTION_MAX_REPORTS", default=100, minimum=1)
CONTRADICTION_MAX_CLAIMS = env_int("CONTRADICTION_MAX_CLAIMS", default=1000, minimum=1)
# Arbitrations of one run made at once (all of a run's contradictions when there are fewer).
CONTRADICTION_MAX_CONCURRENT_CALLS = env_int(
    "CONTRADICTION_MAX_CONCURRENT_CALLS", default=16, minimum=1
)
CONTRADICTION_API_CREATE_RATE = env_rate("CONTRADICTION_API_CREATE_RATE", default="30/minute")

# --- Model routing (agents/routing.py) --------------------------------------------------------
# Named groups of deployments, as JSON: {"reasoning": ["openai/gpt-4o", {"model": "anthropic/...",
# "api_key": "os.environ/ANTHROPIC_API_KEY", "name": "claude"}], "cheap": "openai/gpt-4o-mini"}.
# A group's deployments are tried in order. reasoning, moderation, arbitration and cheap always
# exist; one not configured has the single deployment DEBATE_DEFAULT_MODEL.
DEBATE_MODEL_GROUPS = env_json_object("DEBATE_MODEL_GROUPS")
# Which group a call uses, by "step:role" ("*" for any), over the default table in the README.
DEBATE_MODEL_ROUTES = env_json_object("DEBATE_MODEL_ROUTES")
# Groups tried after all of a group's deployments failed: {"reasoning": ["cheap"]}.
DEBATE_MODEL_FALLBACKS = env_json_object("DEBATE_MODEL_FALLBACKS")
# Models users may choose (a debate's `model` option, an agent's model) besides the groups,
# their deployments and DEBATE_DEFAULT_MODEL; a trailing * matches any rest ("offline/*").
DEBATE_ALLOWED_MODELS = env.list("DEBATE_ALLOWED_MODELS", default=[])
LOGGING["loggers"]["LiteLLM Router"] = {"level": "WARNING"}

# --- Providers' rate limits (agents/provider_limits.py) ---------------------------------------
# A deployment's `rpm` and `tpm` (in DEBATE_MODEL_GROUPS) are kept by every worker together,
# through Redis, over a sliding window of this many seconds (60: per minute; tests shorten it).
DEBATE_PROVIDER_LIMIT_WINDOW = env.float("DEBATE_PROVIDER_LIMIT_WINDOW", default=60.0)
