from django.urls import path

from evaluation import views

app_name = "evaluation"

urlpatterns = [
    path("", views.run_list, name="list"),
    path("start/", views.run_start, name="start"),
    path("compare/", views.run_compare, name="compare"),
    path("<uuid:run_id>/", views.run_detail, name="detail"),
]
