from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.routers import SimpleRouter

from contradictions.api.views import ContradictionRunViewSet
from debates.api import protocols, reviews, views

app_name = "api"

router = SimpleRouter()
router.register("debates", views.DebateViewSet, basename="debate")
router.register("agents", views.AgentViewSet, basename="agent")
router.register("reviews", reviews.ReviewViewSet, basename="review")
router.register("contradiction-runs", ContradictionRunViewSet, basename="contradiction-run")

v1 = [
    *router.urls,
    path("protocols/", protocols.ProtocolListView.as_view(), name="protocol-list"),
    path("webhook-secret/", views.WebhookSecretView.as_view(), name="webhook-secret"),
    path("health/", views.HealthView.as_view(), name="health"),
]

urlpatterns = [
    path("v1/", include(v1)),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
]
