import json

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from debates import running, selectors, services
from debates.default_protocol import default_protocol
from debates.models import Debate
from debates.transcript import render_text
from protocols import protocol_catalog
from runs.worker import require_worker, wait_until_finished


class Command(BaseCommand):
    help = "Run one debate and print its transcript and decision."

    def add_arguments(self, parser):
        parser.add_argument("question", nargs="?", help="The question to debate.")
        parser.add_argument(
            "--protocol",
            default=default_protocol(),
            help="Debate protocol (default: %(default)s); --list-protocols shows them all.",
        )
        parser.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="A protocol option, e.g. --option max_rounds=3 (repeatable).",
        )
        parser.add_argument(
            "--list-protocols",
            action="store_true",
            help="List the protocols with their options and defaults, and exit.",
        )
        parser.add_argument(
            "--agents", default="", help="Comma-separated agent slugs (default: the protocol's)."
        )
        parser.add_argument(
            "--in-process",
            action="store_true",
            help="Run here instead of through a Celery worker.",
        )
        parser.add_argument(
            "--as",
            dest="as_user",
            default="",
            metavar="USERNAME",
            help="Record the debate as this user's; a missing user is created as a system "
            "user that cannot log in (e.g. --as demo).",
        )
        parser.add_argument("--json", action="store_true", help="Print the JSON export.")
        parser.add_argument(
            "--timeout", type=float, default=300, help="Seconds to wait for the worker."
        )

    def handle(
        self,
        *args,
        question,
        protocol,
        agents,
        in_process,
        json: bool,
        timeout,
        option,
        list_protocols,
        as_user="",
        **opts,
    ):
        if list_protocols:
            self._list_protocols(json)
            return
        if question is None:
            raise CommandError("Give the question to debate (or --list-protocols).")
        options = _parse_options(option)
        if not in_process:
            require_worker()
        slugs = [s.strip() for s in agents.split(",") if s.strip()] or None
        try:
            debate = services.debate_create(
                query=question,
                protocol=protocol,
                agents=slugs,
                options=options,
                enqueue=not in_process,
                created_by=_system_user(as_user) if as_user else None,
            )
        except ValidationError as exc:
            messages = "; ".join(
                f"{field}: {' '.join(errs)}" for field, errs in exc.message_dict.items()
            )
            raise CommandError(messages) from exc
        if in_process:
            running.debate_run(debate_id=debate.id)
        else:
            wait_until_finished(
                Debate.objects.filter(id=debate.id),
                done=(Debate.Status.COMPLETED, Debate.Status.FAILED),
                timeout=timeout,
                what=f"The debate {debate.id}",
            )
        debate = selectors.debate_get(debate.id)
        if json:
            self.stdout.write(_json_dumps(selectors.debate_export(debate)))
        else:
            self.stdout.write(render_text(debate))
        if debate.status == Debate.Status.FAILED:
            raise CommandError(f"The debate failed: {debate.error}")

    def _list_protocols(self, as_json: bool):
        catalog = protocol_catalog()
        if as_json:
            self.stdout.write(_json_dumps(catalog))
            return
        for entry in catalog:
            agents = (
                f"{entry['min_participants']} agents"
                if entry["min_participants"] == entry["max_participants"]
                else f"{entry['min_participants']}-{entry['max_participants']} agents"
            )
            self.stdout.write(f"{entry['name']}: {entry['label']}")
            self.stdout.write(f"    {entry['description']}")
            self.stdout.write(f"    decisions: {', '.join(entry['decisions'])}; {agents}")
            self.stdout.write(f"    roles: {entry['roles_needed']}")
            for opt in entry["options"]:
                bounds = ""
                if "choices" in opt:
                    bounds = f", one of {'/'.join(opt['choices'])}"
                elif opt["type"] in ("int", "float") and "min" in opt:
                    bounds = f", {opt['min']:g}-{opt['max']:g}"
                default = opt["default"] if opt["default"] != "" else "(none)"
                self.stdout.write(
                    f"    --option {opt['name']}=...  ({opt['type']}, default {default}{bounds})"
                    f": {opt['description']}"
                )


def _parse_options(pairs: list[str]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise CommandError(f"--option takes KEY=VALUE, e.g. max_rounds=3; got {pair!r}.")
        if key.strip() in options:
            raise CommandError(f"--option {key.strip()} is given twice.")
        options[key.strip()] = value.strip()
    return options


def _json_dumps(data):
    return json.dumps(data, indent=2, ensure_ascii=False)


def _system_user(username: str):
    """The user a command's debates are recorded as: created without a usable password (it
    cannot log in) when it does not exist yet."""
    model = get_user_model()
    user = model.objects.filter(username=username).first()
    if user is None:
        user = model(username=username)
        user.set_unusable_password()
        try:
            user.full_clean(exclude=["password"])
        except ValidationError as exc:
            raise CommandError(f"--as {username!r}: {' '.join(exc.messages)}") from None
        user.save()
    return user
