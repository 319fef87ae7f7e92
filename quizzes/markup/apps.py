from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MarkupConfig(AppConfig):
    name = "quizzes.markup"
    label = "markup"
    verbose_name = _("Markup")
