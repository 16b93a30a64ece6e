from django.urls import path
from rest_framework.routers import SimpleRouter

from debates.api import events, protocols, views

router = SimpleRouter()
router.register("debates", views.DebateViewSet, basename="debate")

urlpatterns = [
    # before the router's routes, whose detail route would take "batch" for an id
    path("debates/batch/", views.DebateBatchView.as_view(), name="debate-batch"),
    *router.urls,
    path("debates/<uuid:pk>/events/", events.debate_events, name="debate-events"),
    path(
        "debates/<uuid:pk>/transcript.md",
        views.DebateMarkdownView.as_view(),
        name="debate-markdown",
    ),
    path("protocols/", protocols.ProtocolListView.as_view(), name="protocol-list"),
    path("webhook-secret/", views.WebhookSecretView.as_view(), name="webhook-secret"),
    path("webhooks/ping/", views.WebhookPingView.as_view(), name="webhook-ping"),
]
