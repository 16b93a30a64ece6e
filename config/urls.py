from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import RedirectView

from analytics.metrics.views import metrics

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="debates:list", permanent=False)),
    # Evaluation runs moved from the debates app to evaluation: links to the old pages lead on.
    re_path(
        r"^admin/debates/(?P<page>evaluation(?:run|item)/.*)$",
        RedirectView.as_view(url="/admin/evaluation/%(page)s", permanent=True, query_string=True),
    ),
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("debates/", include("debates.urls")),
    path("reviews/", include("reviews.urls")),
    path("contradictions/", include("contradictions.urls")),
    path("analytics/", include("analytics.urls")),
    path("evaluation/", include("evaluation.urls")),
    path("api/", include("api.urls")),
    path("metrics", metrics, name="metrics"),
]

handler400 = "api.errors.bad_request"
handler404 = "api.errors.not_found"
handler500 = "api.errors.server_error"
