from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LearningConfig(AppConfig):
    name = "quizzes.learning"
    label = "learning"
    verbose_name = _("Learning")
