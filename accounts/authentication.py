"""`Authorization: Bearer <token>` for programs; browsers use the session."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions

from accounts.services import token_authenticate


class BearerTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header:
            return None
        if header[0].lower() != self.keyword.lower().encode():
            scheme = header[0].decode("ascii", "replace")[:20]
            raise exceptions.AuthenticationFailed(
                _(
                    "The Authorization scheme '%(scheme)s' is not accepted: send "
                    "'Authorization: Bearer <token>'."
                )
                % {"scheme": scheme}
            )
        if len(header) != 2:
            raise exceptions.AuthenticationFailed(
                _("Send the header as 'Authorization: Bearer <token>' (one token, no spaces).")
            )
        try:
            raw = header[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed(_("The token is not valid.")) from None
        token = token_authenticate(raw)
        if token is None:
            raise exceptions.AuthenticationFailed(_("The token is unknown or has been revoked."))
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("The token's user is inactive."))
        return token.user, token

    def authenticate_header(self, request):
        return self.keyword
