"""The writes of classes: make one, open or close joining, join, remove a learner."""

import secrets

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction

from quizzes.models import CLASS_CODE_ALPHABET, CLASS_CODE_LENGTH, Class, Membership

# A new code is drawn again if it is taken; with 29⁸ codes, a second draw is already rare.
CODE_DRAWS = 5


class JoiningClosed(Exception):
    """The class takes no new learners."""


def new_class_code() -> str:
    return "".join(secrets.choice(CLASS_CODE_ALPHABET) for _ in range(CLASS_CODE_LENGTH))


def class_create(*, name: str, instructor: AbstractBaseUser) -> Class:
    """A class taught by `instructor`, open for joining, with a code and a link of its own."""
    for _draw in range(CODE_DRAWS - 1):
        try:
            return _class_insert(name=name, instructor=instructor)
        except IntegrityError:  # The code was taken: draw another.
            continue
    return _class_insert(name=name, instructor=instructor)


def _class_insert(*, name: str, instructor: AbstractBaseUser) -> Class:
    with transaction.atomic():
        klass = Class.objects.create(
            name=name, code=new_class_code(), token=secrets.token_urlsafe(32)
        )
        klass.instructors.add(instructor)
        return klass


def class_joining_set(*, klass: Class, joining_open: bool) -> None:
    Class.objects.filter(pk=klass.pk).update(joining_open=joining_open)
    klass.joining_open = joining_open


def class_join(*, klass: Class, learner: AbstractBaseUser) -> tuple[Membership, bool]:
    """The learner's membership of the class, and whether they joined just now.

    Joining again is harmless, even once joining is closed. A learner removed earlier joins
    again like anyone else, while joining is open. Of parallel joins one makes the row, the
    others find it (get_or_create catches the unique constraint's refusal).
    """
    existing = Membership.objects.filter(klass=klass, learner=learner).first()
    if existing is not None:
        return existing, False
    if not Class.objects.filter(pk=klass.pk, joining_open=True).exists():
        raise JoiningClosed
    return Membership.objects.get_or_create(klass=klass, learner=learner)


def membership_remove(*, klass: Class, learner_id: int) -> bool:
    """Take a learner out of the class; their attempts and answers stay as they are."""
    deleted, _by_model = Membership.objects.filter(klass=klass, learner_id=learner_id).delete()
    return bool(deleted)
