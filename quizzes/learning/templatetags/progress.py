"""The learner's status at the quizzes a page lists (quizzes/learning/selectors.py: quiz_statuses).

`{% quiz_statuses quizzes as statuses %}` reads them in one query for a page that lists
quizzes but is not of this app (the guide path page: `guides` imports nothing of
`quizzes`); `statuses|status_of:quiz` gives one quiz's, not started when missing.
"""

from django import template

from quizzes.learning.identity import learner_of
from quizzes.learning.selectors import NOT_STARTED, QuizStatus
from quizzes.learning.selectors import quiz_statuses as read_statuses

register = template.Library()


@register.simple_tag(takes_context=True)
def quiz_statuses(context, quizzes) -> dict[int, QuizStatus]:
    return read_statuses(learner=learner_of(context["request"]), quiz_ids=[q.pk for q in quizzes])


@register.filter
def status_of(statuses: dict[int, QuizStatus] | None, quiz) -> QuizStatus:
    return (statuses or {}).get(quiz.pk, NOT_STARTED)
