import os

from django.core.wsgi import get_wsgi_application

from config import tracing

# Production unless told otherwise: a deployment that forgets the variable must not run with
# debug on and a public key. Local development sets it (manage.py, bin/demo).
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
# Traces, when OTEL_EXPORTER_OTLP_ENDPOINT is set: before the application loads its middleware.
tracing.setup("debates-web")
application = get_wsgi_application()
