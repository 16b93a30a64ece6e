import os

from django.core.asgi import get_asgi_application

# Production unless told otherwise: a deployment that forgets the variable must not run with
# debug on and a public key. Local development sets it (manage.py, bin/demo).
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
application = get_asgi_application()
