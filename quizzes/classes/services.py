"""The writes of classes: make one, open or close joining, join, remove a learner; assign
quizzes, change an assignment's rules, give a learner an override."""

import secrets
from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import ProtectedError
from django.utils import timezone

from guides.models import GuidePath
from quizzes.models import (
    CLASS_CODE_ALPHABET,
    CLASS_CODE_LENGTH,
    Assignment,
    AssignmentChange,
    Attempt,
    Class,
    Membership,
    Override,
    Quiz,
)

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


# The rules an assignment keeps, in the order its page shows them.
RULES = ("opens_at", "closes_at", "time_limit", "attempt_limit", "grading", "review")


class NothingToAssign(Exception):
    """The guide path has no published quiz."""


@transaction.atomic
def assignments_create(
    *, klass: Class, quiz: Quiz | None = None, guide: GuidePath | None = None, rules: dict, by
) -> list[Assignment]:
    """Assign a published quiz to the class, or a guide path: one assignment for each of its
    published quizzes, in the path's order, under the same rules (NothingToAssign if it has
    none)."""
    if (quiz is None) == (guide is None):
        raise ValueError("Give a quiz or a guide path.")
    quizzes = [quiz] if quiz is not None else list(guide.quizzes.published().order_by("pk"))
    if not quizzes:
        raise NothingToAssign
    return Assignment.objects.bulk_create(
        Assignment(klass=klass, quiz=each, created_by=by, **rules) for each in quizzes
    )


def rule_shown(name: str, value) -> str:
    """A rule's value as the history keeps it: a date in the site's time zone, minutes."""
    if value is None:
        return ""
    if name in ("opens_at", "closes_at"):
        return timezone.localtime(value).strftime("%Y-%m-%d %H:%M")
    if name == "time_limit":
        return str(int(value.total_seconds() // 60))
    return str(value)


@transaction.atomic
def assignment_update(*, assignment: Assignment, rules: dict, by) -> list[AssignmentChange]:
    """Change the assignment's rules. Once it has attempts, each rule changed is kept in its
    history (who, when, before, after). The deadlines of the attempts in progress follow a
    new close or time limit."""
    changed = [name for name in RULES if getattr(assignment, name) != rules[name]]
    if not changed:
        return []
    history = []
    if Attempt.objects.filter(assignment=assignment).exists():
        history = AssignmentChange.objects.bulk_create(
            AssignmentChange(
                assignment=assignment,
                changed_by=by,
                field=name,
                before=rule_shown(name, getattr(assignment, name)),
                after=rule_shown(name, rules[name]),
            )
            for name in changed
        )
    for name in changed:
        setattr(assignment, name, rules[name])
    assignment.save(update_fields=changed)
    if {"closes_at", "time_limit"} & set(changed):
        _deadlines_follow(assignment, Attempt.objects.filter(assignment=assignment))
    return history


def _deadlines_follow(assignment: Assignment, attempts) -> None:
    """Give the attempts in progress the deadline the assignment's rules give them now."""
    extra = dict(
        Override.objects.filter(assignment=assignment).values_list("learner_id", "extra_time")
    )
    open_now = attempts.filter(completed_at=None, abandoned_at=None)
    for attempt in open_now.only("pk", "started_at", "user_id"):
        attempt.deadline = assignment.deadline_for(
            started_at=attempt.started_at, extra_time=extra.get(attempt.user_id, timedelta(0))
        )
        attempt.save(update_fields=["deadline"])


class AssignmentHasAttempts(Exception):
    """The assignment has attempts, which are never lost: it stays."""


def assignment_delete(*, assignment: Assignment) -> None:
    """Delete an assignment nobody has started, with its overrides and history. One with
    attempts stays (their assignment is PROTECTed: an attempt started since the check is
    refused all the same)."""
    try:
        with transaction.atomic():
            if Attempt.objects.filter(assignment=assignment).exists():
                raise AssignmentHasAttempts
            assignment.delete()
    except ProtectedError as error:
        raise AssignmentHasAttempts from error


class NotInClass(Exception):
    """The learner is not in the assignment's class."""


@transaction.atomic
def override_give(
    *, assignment: Assignment, learner_id: int, extra_time: timedelta, extra_attempts: int, by
) -> Override:
    """Give one learner of the class extra time, extra attempts or both on the assignment (a
    second override replaces the first), with who gave it and when; their attempt in
    progress gets the extra time at once."""
    if not Membership.objects.filter(klass=assignment.klass_id, learner=learner_id).exists():
        raise NotInClass
    override, _created = Override.objects.update_or_create(
        assignment=assignment,
        learner_id=learner_id,
        defaults={"extra_time": extra_time, "extra_attempts": extra_attempts, "given_by": by},
    )
    _deadlines_follow(assignment, Attempt.objects.filter(assignment=assignment, user=learner_id))
    return override


@transaction.atomic
def override_remove(*, assignment: Assignment, learner_id: int) -> bool:
    """Take a learner's override away: the assignment's rules apply to them as to everyone,
    their attempt in progress included. Whether there was one."""
    deleted, _by_model = Override.objects.filter(
        assignment=assignment, learner_id=learner_id
    ).delete()
    if deleted:
        _deadlines_follow(
            assignment, Attempt.objects.filter(assignment=assignment, user=learner_id)
        )
    return bool(deleted)
