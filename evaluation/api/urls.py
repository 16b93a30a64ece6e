from django.urls import path

from evaluation.api import views

urlpatterns = [
    path(
        "evaluation/ground-truth/",
        views.GroundTruthView.as_view(),
        name="evaluation-ground-truth",
    ),
    path("evaluation/quality/", views.QualityView.as_view(), name="evaluation-quality"),
    path("evaluation/replay/", views.ReplayView.as_view(), name="evaluation-replay"),
]
