from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path

from . import views

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", views.healthz, name="healthz"),
]

urlpatterns += i18n_patterns(
    path("", include("guides.urls")),
    path("", include("quizzes.urls")),
)

handler400 = views.bad_request
handler404 = views.page_not_found
