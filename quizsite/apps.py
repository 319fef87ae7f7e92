from django.apps import AppConfig


class QuizsiteConfig(AppConfig):
    name = "quizsite"
    verbose_name = "Quizsite"

    def ready(self) -> None:
        from django.contrib import admin
        from django.contrib.auth.signals import user_login_failed

        from . import lookups  # noqa: F401 (registers the integer `in` lookup)
        from .adminsearch import bound_every_search
        from .signin import release_in_flight

        # The admin (first in INSTALLED_APPS) has imported every app's admin module by now.
        bound_every_search(admin.site)

        # After axes' receiver (axes comes first in INSTALLED_APPS): the failure is recorded
        # before the sign-in's in-flight marks go.
        user_login_failed.connect(release_in_flight, dispatch_uid="quizsite.release_in_flight")
