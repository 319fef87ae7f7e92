"""Outside the language prefix: the script guide authors load, at an address that stays, and
oEmbed (a CMS is given one address; the quiz's address tells the language)."""

from django.urls import path

from quizzes.embed import views
from quizzes.embed.oembed import oembed

urlpatterns = [
    path("embed.js", views.script, name="embed_script"),
    path("oembed", oembed, name="oembed"),
]
