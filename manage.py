#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    from django.core.management import execute_from_command_line

    if sys.argv[1:2] == ["runserver"]:
        # Traces, when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operations/traces.md).
        from config import tracing

        tracing.setup("debates-web")
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
