from django.urls import path

from analytics import views

app_name = "analytics"

urlpatterns = [
    path("", views.analytics, name="page"),
    path("<slug:chart_id>.csv", views.analytics_csv, name="csv"),
]
