from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EmbedConfig(AppConfig):
    name = "quizzes.embed"
    label = "embed"
    verbose_name = _("Embeds")
