import re

from django.conf import settings
from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path, re_path
from django.views.static import serve

from . import views

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", views.healthz, name="healthz"),
]

if settings.SERVE_MEDIA:
    # Uploaded images, which WhiteNoise can't serve (it knows only the files there at start-up).
    urlpatterns.append(
        re_path(
            "^" + re.escape(settings.MEDIA_URL.lstrip("/")) + "(?P<path>.+)$",
            serve,
            {"document_root": settings.MEDIA_ROOT},
            name="media",
        )
    )

urlpatterns += i18n_patterns(
    path("", include("guides.urls")),
    path("", include("quizzes.urls")),
)

handler404 = views.page_not_found
