import re

from django.conf import settings
from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path, re_path

from . import views

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", views.healthz, name="healthz"),
    path("", include("quizzes.lti.urls")),
    path("", include("quizzes.embed.root_urls")),
]

if settings.SERVE_MEDIA:
    urlpatterns.append(
        re_path(
            "^" + re.escape(settings.MEDIA_URL.lstrip("/")) + "(?P<path>.+)$",
            views.media,
            name="media",
        )
    )

urlpatterns += i18n_patterns(
    path("", include("guides.urls")),
    path("", include("quizzes.learning.urls")),
    path("", include("quizzes.reports.urls")),
    path("", include("quizzes.classes.urls")),
    path("embed/", include("quizzes.embed.urls")),
)

handler400 = views.bad_request
handler404 = views.page_not_found
