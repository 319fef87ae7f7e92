"""What LTI does when the learner flow finishes an attempt: queue its score for the platform
and send it from the task worker, never from the learner's request."""

from django.dispatch import receiver

from quizzes.lti import services
from quizzes.lti.tasks import score_deliver
from quizzes.models import Attempt, attempt_finished


@receiver(attempt_finished, sender=Attempt, dispatch_uid="lti_score_queue")
def score_queue_on_finish(sender, *, attempt: Attempt, **kwargs) -> None:
    score = services.score_queue(attempt=attempt)
    if score is not None:
        score_deliver.enqueue(score_id=score.pk)
