from django.urls import path

from budgets.api import views

urlpatterns = [path("usage/", views.UsageView.as_view(), name="usage")]
