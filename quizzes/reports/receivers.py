"""What the reports do when the learner flow finishes an attempt: have the task worker fold
the rollups' deltas soon (background.rollups_compact_soon)."""

from django.dispatch import receiver

from quizzes.models import Attempt, attempt_finished
from quizzes.reports.background import rollups_compact_soon


@receiver(attempt_finished, sender=Attempt, dispatch_uid="reports_rollups_compact")
def rollups_compact_on_finish(sender, *, attempt: Attempt, **kwargs) -> None:
    rollups_compact_soon()
