from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LtiConfig(AppConfig):
    name = "quizzes.lti"
    label = "lti"
    verbose_name = _("LMS (LTI 1.3)")

    def ready(self) -> None:
        from quizzes.lti import receivers  # noqa: F401  (connects attempt_finished)
