from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from accounts.services import token_issue


class Command(BaseCommand):
    help = "Issue an API token to a user and print its secret (shown only this once)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", default="API token", help="What the token is for.")

    def handle(self, *args, username, name, **options):
        User = get_user_model()
        try:
            user = User.objects.get(**{User.USERNAME_FIELD: username})
        except User.DoesNotExist:
            raise CommandError(f"No user named '{username}'.") from None
        try:
            token, raw = token_issue(user=user, name=name)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        self.stderr.write(
            f"Token '{token.name}' issued to {username}. Send it as "
            "'Authorization: Bearer <token>'. It is not stored and cannot be shown again:"
        )
        self.stdout.write(raw)
