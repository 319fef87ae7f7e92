"""The URLconf an embed page is served under (set on its request by EmbedFrameMiddleware):
the site's, then under /<lang>/embed/ the learner's pages that a quiz taken in a frame goes
through, by the names the learner's views and templates reverse. Of two patterns of one
name, reverse() takes the last: here, the embed's. So one set of views and templates makes
both the site's pages and the frame's, and a link leaves the frame only where a template
says so ({% leaves %})."""

from django.conf.urls.i18n import i18n_patterns
from django.urls import path

from quizsite.urls import handler400, handler404
from quizsite.urls import urlpatterns as site_patterns
from quizzes.embed import views
from quizzes.learning.views import pages as learner

urlpatterns = [
    *site_patterns,
    *i18n_patterns(
        path("embed/quizzes/<slug:slug>/", views.quiz, name="quiz_detail"),
        path("embed/quizzes/<slug:slug>/start/", views.start, name="quiz_start"),
        path(
            "embed/attempts/<uuid:public_id>/questions/<int:number>/",
            learner.question,
            name="question",
        ),
        path("embed/attempts/<uuid:public_id>/results/", learner.results, name="results"),
        path("embed/attempts/<uuid:public_id>/practice/", learner.practice, name="practice"),
    ),
]

__all__ = ["handler400", "handler404", "urlpatterns"]
