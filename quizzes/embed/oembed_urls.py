from django.urls import path

from quizzes.embed.oembed import oembed

# Outside the language prefix: a CMS is given one address; the quiz's address tells the
# language.
urlpatterns = [path("oembed", oembed, name="oembed")]
