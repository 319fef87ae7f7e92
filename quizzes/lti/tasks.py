"""The score sender, run by the task worker (`manage.py db_worker`) after an attempt ends."""

try:  # Django 6
    from django.tasks import task
except ImportError:  # Django 5.2: the backport
    from django_tasks import task

from quizzes.lti import services
from quizzes.lti.models import Score


@task()
def score_deliver(*, score_id: int) -> bool:
    """Send one queued score, if it is still pending: whether the platform has it now. A
    failure stays pending for `manage.py lti_send_scores` and the next launch."""
    score = Score.objects.pending().select_related("link__context__platform").filter(pk=score_id)
    found = score.first()
    return found is None or services.score_send(score=found)


@task()
def scores_deliver() -> int:
    """Send every pending score (a launch queues this): how many are still pending."""
    return services.scores_send()[1]
