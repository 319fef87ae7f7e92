"""Who the learner of a request is: their account, or the key their browser keeps.

An anonymous learner's attempts are theirs through a random key that their browser keeps in
a signed cookie for as long as a session would last: no session row to create, and no query
to read one on every page.
"""

import secrets

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from quizsite.clientip import client_ip
from quizzes.learning.selectors import Learner

LEARNER_COOKIE = "learner"
# In a signed-in learner's session once their account has an attempt: the header then links
# to My progress. The session is read anyway for a signed-in request, so this costs nothing.
HAS_ATTEMPTS = "has_attempts"


def learner_key(request: HttpRequest) -> str | None:
    return request.get_signed_cookie(
        LEARNER_COOKIE, default=None, salt=LEARNER_COOKIE, max_age=settings.SESSION_COOKIE_AGE
    )


def learner_of(request: HttpRequest) -> Learner:
    if request.user.is_authenticated:
        return Learner(user_id=request.user.pk, key=None)
    return Learner(user_id=None, key=learner_key(request))


def learner_or_address(request: HttpRequest) -> str:
    """Who counts for a rate limit: the account, the browser's key, or without either the
    client's address (a client that drops its cookies is one address)."""
    if request.user.is_authenticated:
        return f"user:{request.user.pk}"
    key = learner_key(request)
    return f"key:{key}" if key else f"address:{client_ip(request)}"


def new_learner_key() -> str:
    return secrets.token_hex(16)


def keep_learner_key(response: HttpResponse, key: str) -> None:
    response.set_signed_cookie(
        LEARNER_COOKIE,
        key,
        salt=LEARNER_COOKIE,
        max_age=settings.SESSION_COOKIE_AGE,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite=settings.SESSION_COOKIE_SAMESITE,
    )


def forget_learner_key(response: HttpResponse) -> None:
    response.delete_cookie(LEARNER_COOKIE, samesite=settings.SESSION_COOKIE_SAMESITE)


def has_attempts(request: HttpRequest) -> bool:
    """Whether the learner has started an attempt, without a query: for an anonymous one,
    whether their browser has a key, which only starting an attempt gives it (unchecked: a
    forged one only shows a link to a page that checks it); for a signed-in one, the flag in
    their session."""
    user = getattr(request, "user", None)  # None on a page made before the middleware ran.
    if user is not None and user.is_authenticated:
        return bool(request.session.get(HAS_ATTEMPTS))
    return LEARNER_COOKIE in request.COOKIES


def note_attempts(request: HttpRequest) -> None:
    """The signed-in learner has an attempt now (a session write, the first time only)."""
    if not request.session.get(HAS_ATTEMPTS):
        request.session[HAS_ATTEMPTS] = True
