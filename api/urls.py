"""The API's URLs: version 1 gathers each app's API (by module path, so this package imports
none of them), the shared health check, the schema and its docs. Every name is in the `api`
namespace (e.g. ``api:debate-detail``)."""

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from api.health import HealthView

app_name = "api"

v1 = [
    path("", include("debates.api.urls")),
    path("", include("evaluation.api.urls")),
    path("", include("agents.api.urls")),
    path("", include("reviews.api.urls")),
    path("", include("contradictions.api.urls")),
    path("", include("budgets.api.urls")),
    path("health/", HealthView.as_view(), name="health"),
]

urlpatterns = [
    path("v1/", include(v1)),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
]
