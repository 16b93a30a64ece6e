from django.urls import path

from debates import views

app_name = "debates"

urlpatterns = [
    path("", views.debate_list, name="list"),
    path("new/", views.debate_start, name="start"),
    path("<uuid:debate_id>/", views.debate_detail, name="detail"),
    path("<uuid:debate_id>/live/", views.debate_live, name="live"),
    path("<uuid:debate_id>/calls/<int:call_id>/", views.debate_call, name="call"),
    path("<uuid:debate_id>/debate.json", views.debate_json, name="export_json"),
    path("<uuid:debate_id>/debate.md", views.debate_markdown, name="export_markdown"),
]
