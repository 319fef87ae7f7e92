"""Outside the language prefix: the script guide authors load, at an address that stays."""

from django.urls import path

from quizzes.embed import views

urlpatterns = [path("embed.js", views.script, name="embed_script")]
