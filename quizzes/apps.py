from django.apps import AppConfig
from django.db.models.signals import m2m_changed, post_delete, post_migrate, post_save, pre_delete
from django.utils.translation import gettext_lazy as _


class QuizzesConfig(AppConfig):
    name = "quizzes"
    verbose_name = _("Quizzes")

    def ready(self) -> None:
        # Not business logic: these only keep the content kept by quizzes/snapshots.py fresh,
        # whatever writes a question, a choice or a guide path (the admin, an import, a shell,
        # a data migration).
        from guides.models import GuidePath
        from guides.signals import guide_paths_written
        from quizzes import snapshots
        from quizzes.models import Choice, Question, Quiz, Unit

        for signal in (post_save, post_delete):
            signal.connect(snapshots.question_changed, sender=Question)
            signal.connect(snapshots.choice_changed, sender=Choice)
            signal.connect(snapshots.choice_changed, sender=Unit)
        post_save.connect(snapshots.guide_path_changed, sender=GuidePath)
        pre_delete.connect(snapshots.guide_path_changed, sender=GuidePath)
        guide_paths_written.connect(snapshots.guide_paths_written, sender=GuidePath)
        m2m_changed.connect(snapshots.guide_paths_relinked, sender=Quiz.guide_paths.through)
        post_migrate.connect(snapshots.content_migrated, sender=self)
