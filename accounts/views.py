"""The token page: a signed-in user makes, lists and revokes their own API tokens."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from accounts import services


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=100,
        strip=True,
        help_text="What the token is for, e.g. 'nightly report' or 'CI job'.",
        error_messages={"required": "Give the token a name saying what it is for."},
    )


@login_required
def token_page(request):
    form = TokenForm(request.POST or None)
    new_secret = None
    if request.method == "POST" and form.is_valid():
        try:
            token, new_secret = services.token_issue_own(
                user=request.user, name=form.cleaned_data["name"]
            )
        except ValidationError as exc:
            for field, errors in exc.message_dict.items():
                form.add_error(field if field in form.fields else None, errors)
        else:
            form = TokenForm()
    status = 201 if new_secret else (400 if request.method == "POST" else 200)
    return render(
        request,
        "accounts/tokens.html",
        {
            "form": form,
            "new_secret": new_secret,
            "tokens": services.tokens_of(user=request.user),
        },
        status=status,
    )


@login_required
@require_POST
def token_revoke_view(request, token_id: int):
    if services.token_revoke_own(user=request.user, token_id=token_id):
        messages.success(request, "Token revoked: it no longer works.")
    else:
        messages.error(request, "No active token of yours has that number.")
    return redirect("accounts:tokens")
