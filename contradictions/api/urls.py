from rest_framework.routers import SimpleRouter

from contradictions.api.views import ContradictionRunViewSet

router = SimpleRouter()
router.register("contradiction-runs", ContradictionRunViewSet, basename="contradiction-run")

urlpatterns = router.urls
