from django.urls import path
from rest_framework.routers import SimpleRouter

from reviews.api import views

router = SimpleRouter()
router.register("reviews", views.ReviewViewSet, basename="review")

urlpatterns = [
    path("reviews/duty/", views.DutyView.as_view(), name="review-duty"),
    path("reviews/agreement/", views.AgreementView.as_view(), name="review-agreement"),
    *router.urls,
]
