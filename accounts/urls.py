from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("tokens/", views.token_page, name="tokens"),
    path("tokens/<int:token_id>/revoke/", views.token_revoke_view, name="token-revoke"),
]
