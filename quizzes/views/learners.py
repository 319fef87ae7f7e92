"""Who the learner of a request is: their account, or the key their browser keeps.

An anonymous learner's attempts are theirs through a random key that their browser keeps in
a signed cookie for as long as a session would last: no session row to create, and no query
to read one on every page.
"""

import secrets

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from ..selectors import Learner

LEARNER_COOKIE = "learner"


def learner_key(request: HttpRequest) -> str | None:
    return request.get_signed_cookie(
        LEARNER_COOKIE, default=None, salt=LEARNER_COOKIE, max_age=settings.SESSION_COOKIE_AGE
    )


def learner_of(request: HttpRequest) -> Learner:
    if request.user.is_authenticated:
        return Learner(user_id=request.user.pk, key=None)
    return Learner(user_id=None, key=learner_key(request))


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
