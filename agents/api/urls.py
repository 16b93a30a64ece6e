from rest_framework.routers import SimpleRouter

from agents.api import views

router = SimpleRouter()
router.register("agents", views.AgentViewSet, basename="agent")

urlpatterns = router.urls
