# Shared by the scripts in bin/: find Python 3.12+, make the venv, start the local services.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"
export LITELLM_LOCAL_MODEL_COST_MAP=True
export PYTHONUNBUFFERED=1

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf '\033[31merror:\033[0m %s\n' "$*" >&2; exit 1; }

find_python() {
  local candidate
  for candidate in python3.13 python3.12; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import sys; assert sys.version_info >= (3, 12)' 2>/dev/null; then
      command -v "$candidate"; return 0
    fi
  done
  for candidate in "$HOME"/.pyenv/versions/3.13*/bin/python3 "$HOME"/.pyenv/versions/3.12*/bin/python3 \
                   /usr/local/bin/python3.13 /usr/local/bin/python3.12 /usr/bin/python3.13 /usr/bin/python3.12 \
                   "$(command -v python3 || true)"; do
    if [ -x "$candidate" ] && "$candidate" -c 'import sys; assert sys.version_info >= (3, 12)' 2>/dev/null; then
      echo "$candidate"; return 0
    fi
  done
  return 1
}

ensure_venv() {
  if [ ! -x "$PY" ] || ! "$PY" -c 'import sys; assert sys.version_info >= (3, 12)' 2>/dev/null; then
    local base
    base="$(find_python)" || die "Python 3.12 or newer is needed (Django 6.1). Install python3.12 or python3.13."
    say "Creating the virtual environment with $base"
    rm -rf "$VENV"
    "$base" -m venv "$VENV"
  fi
  local stamp="$VENV/.requirements.sha256"
  local want
  want="$(sha256sum requirements.txt | cut -d' ' -f1)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    say "Installing pinned dependencies (hash-checked)"
    # The lock pins every transitive dependency with hashes, so pip resolves nothing itself
    # (--no-deps): that is also what lets requirements-overrides.txt lift a declared cap.
    "$PY" -m pip install --quiet --disable-pip-version-check --no-deps --require-hashes \
      -r requirements.txt 2>&1 \
      | grep -v '^WARNING: Location' || true
    "$PY" -c 'import django, celery, litellm, django_celery_beat, prometheus_client' || die "The dependencies did not install; see above."
    echo "$want" > "$stamp"
  fi
}

pg_ready() { "$PY" - <<'PYEOF' 2>/dev/null
import os, sys
import psycopg
url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
base = url.rsplit("/", 1)[0] + "/postgres"
try:
    psycopg.connect(base, connect_timeout=2).close()
except Exception:
    sys.exit(1)
PYEOF
}

redis_ready() { "$PY" - <<'PYEOF' 2>/dev/null
import os, sys
import redis
try:
    redis.Redis.from_url(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"), socket_timeout=2).ping()
except Exception:
    sys.exit(1)
PYEOF
}

ensure_services() {
  if ! pg_ready; then
    if ls /etc/postgresql >/dev/null 2>&1 && command -v pg_ctlcluster >/dev/null 2>&1; then
      say "Starting PostgreSQL"
      local v
      for v in $(ls /etc/postgresql); do
        pg_ctlcluster --skip-systemctl-redirect "$v" main start 2>/dev/null || pg_ctlcluster "$v" main start || true
      done
      for _ in $(seq 1 30); do pg_ready && break; sleep 0.5; done
    fi
    pg_ready || die "PostgreSQL is not running on ${DATABASE_URL:-127.0.0.1:5432} and could not be started. Install it (Debian: apt-get install postgresql) or set DATABASE_URL."
  fi
  if ! redis_ready; then
    if command -v redis-server >/dev/null 2>&1; then
      say "Starting Redis"
      mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
      redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
        --dir /var/lib/redis --logfile /var/log/redis/ci.log >/dev/null 2>&1 \
        || redis-server --daemonize yes --port 6379 --save "" --appendonly no >/dev/null
      for _ in $(seq 1 30); do redis_ready && break; sleep 0.5; done
    fi
    redis_ready || die "Redis is not running on ${REDIS_URL:-127.0.0.1:6379} and could not be started. Install it (Debian: apt-get install redis-server) or set REDIS_URL."
  fi
}

amqp_ready() { "$PY" - <<'PYEOF' 2>/dev/null
import os, sys
from kombu import Connection
try:
    with Connection(os.environ.get("TEST_AMQP_URL", "amqp://guest:guest@127.0.0.1:5672//"),
                    connect_timeout=2) as conn:
        conn.ensure_connection(max_retries=1)
except Exception:
    sys.exit(1)
PYEOF
}

ensure_rabbitmq() {
  # The tests also run workers on RabbitMQ (the other broker a deployment may use).
  if ! amqp_ready; then
    if command -v rabbitmq-server >/dev/null 2>&1; then
      say "Starting RabbitMQ"
      rabbitmq-server -detached >/dev/null 2>&1 || true
      for _ in $(seq 1 60); do amqp_ready && break; sleep 1; done
    fi
    amqp_ready || die "RabbitMQ is not running on ${TEST_AMQP_URL:-127.0.0.1:5672} and could not be started. Install it (Debian: apt-get install rabbitmq-server) or set TEST_AMQP_URL."
  fi
}

ensure_database() {
  "$PY" - <<'PYEOF'
import os
import psycopg
url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/debates")
name = url.rsplit("/", 1)[1].split("?")[0]
with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
    if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
        conn.execute(f'CREATE DATABASE "{name}"')
        print(f"created database {name}")
PYEOF
}

ensure_chromium() {
  # Browser tests drive Debian's Chromium; nothing may download a browser at run time.
  if [ ! -x /usr/bin/chromium ]; then
    if command -v apt-get >/dev/null 2>&1; then
      say "Installing Chromium (Debian package) for the browser tests"
      local sudo=""
      [ "$(id -u)" -ne 0 ] && sudo="sudo"
      $sudo apt-get install -y -q chromium >/dev/null 2>&1 \
        || { $sudo apt-get update -q >/dev/null 2>&1 && $sudo apt-get install -y -q chromium >/dev/null; }
    fi
    [ -x /usr/bin/chromium ] || die "Chromium is needed for the browser tests (Debian: apt-get install chromium)."
  fi
}
