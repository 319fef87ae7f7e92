"""The reads of classes: an instructor's classes and rosters, a class to join, a learner's
classes. Each a query or two, whatever the number of classes and learners."""

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count

from quizzes.models import Class, Membership, class_code_shown


@dataclass(frozen=True)
class ClassSummary:
    id: int
    name: str
    learners: int
    joining_open: bool
    code_shown: str


@dataclass(frozen=True)
class RosterEntry:
    learner_id: int
    name: str
    joined_at: datetime


@dataclass(frozen=True)
class LearnerClass:
    name: str
    joined_at: datetime


def classes_taught(*, user: AbstractBaseUser) -> list[ClassSummary]:
    """The user's own classes with their learner counts: one query."""
    rows = (
        Class.objects.filter(instructors=user)
        .annotate(learners=Count("memberships"))
        .values("pk", "name", "learners", "joining_open", "code")
    )
    return [
        ClassSummary(
            id=row["pk"],
            name=row["name"],
            learners=row["learners"],
            joining_open=row["joining_open"],
            code_shown=class_code_shown(row["code"]),
        )
        for row in rows
    ]


def class_for_instructor(*, class_id: int, user: AbstractBaseUser) -> Class | None:
    """The class if the user teaches it (a superuser: any class), else None."""
    classes = Class.objects.all() if user.is_superuser else Class.objects.filter(instructors=user)
    # An LMS's course (quizzes.lti) in the same query: its page offers the LMS's roster.
    return classes.select_related("lti_context").filter(pk=class_id).first()


def class_roster(*, klass: Class) -> list[RosterEntry]:
    """The class's learners by name, each with when they joined: one query."""
    return _entries(Membership.objects.filter(klass=klass))


def roster_entry(*, klass: Class, learner_id: int) -> RosterEntry | None:
    """One learner of the class, or None if they are not in it."""
    entries = _entries(Membership.objects.filter(klass=klass, learner_id=learner_id))
    return entries[0] if entries else None


def _entries(memberships) -> list[RosterEntry]:
    rows = memberships.order_by("learner__username", "learner_id").values(
        "learner_id", "learner__username", "joined_at"
    )
    return [
        RosterEntry(
            learner_id=row["learner_id"], name=row["learner__username"], joined_at=row["joined_at"]
        )
        for row in rows
    ]


def class_by_token(*, token: str) -> Class | None:
    return Class.objects.filter(token=token).first()


def class_by_code(*, code: str) -> Class | None:
    """The class of a code as the database keeps it (`class_code_typed`)."""
    return Class.objects.filter(code=code).first()


def is_member(*, klass: Class, user: AbstractBaseUser) -> bool:
    return Membership.objects.filter(klass=klass, learner=user).exists()


def learner_classes(*, user: AbstractBaseUser) -> list[LearnerClass]:
    """The classes a learner belongs to, by name: one query."""
    rows = (
        Membership.objects.filter(learner=user)
        .order_by("klass__name", "klass_id")
        .values("klass__name", "joined_at")
    )
    return [LearnerClass(name=row["klass__name"], joined_at=row["joined_at"]) for row in rows]
