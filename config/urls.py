from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="debates:list", permanent=False)),
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("debates/", include("debates.urls")),
    path("reviews/", include("reviews.urls")),
    path("contradictions/", include("contradictions.urls")),
    path("api/", include("debates.api.urls")),
]

handler404 = "debates.api.views.not_found"
handler500 = "debates.api.views.server_error"
