from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "API access"

    def ready(self):
        # Registers the token scheme with the OpenAPI schema generator.
        from accounts import schema  # noqa: F401
