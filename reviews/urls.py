from django.urls import path

from reviews import views

app_name = "reviews"

urlpatterns = [
    path("", views.queue, name="queue"),
    path("duty/", views.duty, name="duty"),
    path("<int:pk>/", views.item, name="item"),
    path("<int:pk>/claim/", views.claim, name="claim"),
    path("<int:pk>/take/", views.take, name="take"),
    path("<int:pk>/assign/", views.assign, name="assign"),
    path("<int:pk>/release/", views.release, name="release"),
    path("<int:pk>/resolve/", views.resolve, name="resolve"),
    path("<int:pk>/dismiss/", views.dismiss, name="dismiss"),
    path("<int:pk>/rerun/", views.rerun, name="rerun"),
]
