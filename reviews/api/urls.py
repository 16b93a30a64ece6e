from rest_framework.routers import SimpleRouter

from reviews.api import views

router = SimpleRouter()
router.register("reviews", views.ReviewViewSet, basename="review")

urlpatterns = router.urls
