"""The LTI work a launch or a finished attempt leaves to the task worker (`manage.py
db_worker`): the platform is called from there, never from the learner's request."""

import logging

try:  # Django 6
    from django.tasks import task
except ImportError:  # Django 5.2: the backport
    from django_tasks import task

from requests import RequestException

from quizzes.lti import services
from quizzes.lti.models import Context, ResourceLink, Score
from quizzes.lti.tool import LtiException

log = logging.getLogger(__name__)


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


@task()
def roster_bring(*, context_id: int) -> int | None:
    """Fill a course's class from the platform's roster (a launch queues this): how many
    members the platform listed, or None if it could not be read (the next launch asks
    again, as does the class page's button)."""
    context = (
        Context.objects.select_related("klass", "platform")
        .filter(pk=context_id)
        .exclude(memberships_url="")
        .first()
    )
    if context is None:
        return None
    try:
        return services.roster_fill(context=context).listed
    except (LtiException, RequestException, KeyError, ValueError) as error:
        log.warning("LTI roster of %s not read: %s", context, error)
        return None


@task()
def lineitem_make(*, link_id: int) -> str | None:
    """Find or make the gradebook column of a link whose launch gave none (a launch queues
    this): its URL, or None if the platform would not tell or make it (the score's sending
    tries again)."""
    try:
        return services.link_lineitem(link_id=link_id) or None
    except ResourceLink.DoesNotExist:
        return None
    except (LtiException, RequestException, KeyError, ValueError) as error:
        log.warning("LTI line item of link %s not made: %s", link_id, error)
        return None
