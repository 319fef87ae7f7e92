from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save
from django.utils.translation import gettext_lazy as _


class QuizzesConfig(AppConfig):
    name = "quizzes"
    verbose_name = _("Quizzes")

    def ready(self) -> None:
        # Not business logic: these only keep the content cache of quizzes/content.py fresh,
        # whatever saves a question or a choice (the admin, an import, a shell).
        from . import content
        from .models import Choice, Question

        for signal in (post_save, post_delete):
            signal.connect(content.question_changed, sender=Question)
            signal.connect(content.choice_changed, sender=Choice)
