from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ReportsConfig(AppConfig):
    name = "quizzes.reports"
    label = "reports"
    verbose_name = _("Reports")

    def ready(self) -> None:
        from quizzes.reports import receivers  # noqa: F401  (connects attempt_finished)
