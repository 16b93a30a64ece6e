from django.urls import path

from contradictions import views

app_name = "contradictions"

urlpatterns = [
    path("", views.run_list, name="list"),
    path("new/", views.run_start, name="start"),
    path("<uuid:run_id>/", views.run_detail, name="detail"),
]
