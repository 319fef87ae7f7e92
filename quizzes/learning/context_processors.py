from django.http import HttpRequest

from quizzes.learning.identity import has_attempts


def learner(request: HttpRequest) -> dict:
    """`has_attempts`: the header links to My progress once the learner has an attempt."""
    return {"has_attempts": has_attempts(request)}
