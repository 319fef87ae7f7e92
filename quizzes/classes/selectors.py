"""The reads of classes: an instructor's classes and rosters, a class to join, a learner's
classes. Each a query or two, whatever the number of classes and learners."""

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, F, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from guides.models import GuidePath
from quizzes.models import (
    Assignment,
    AssignmentChange,
    Attempt,
    Class,
    Membership,
    Override,
    Quiz,
    class_code_shown,
)


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


def _name(username: str, first_name: str, last_name: str) -> str:
    """A learner as rosters list them: their name (an LMS's account has the name the LMS
    gave), else their username."""
    return f"{first_name} {last_name}".strip() or username


def _entries(memberships) -> list[RosterEntry]:
    rows = memberships.order_by("learner__username", "learner_id").values_list(
        "learner_id", "learner__username", "learner__first_name", "learner__last_name", "joined_at"
    )
    return [
        RosterEntry(learner_id=learner_id, name=_name(*names), joined_at=joined_at)
        for learner_id, *names, joined_at in rows
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


@dataclass(frozen=True)
class AssignmentRow:
    """An assignment of a class with its rules, as its pages list it."""

    assignment: Assignment  # With its quiz (titles are read from instances: translated).
    attempts: int

    @property
    def quiz_title(self) -> str:
        return self.assignment.quiz.title


def class_assignments(*, klass: Class) -> list[AssignmentRow]:
    """The class's assignments, soonest due first, with their quiz and attempt counts: one
    query."""
    rows = (
        Assignment.objects.filter(klass=klass)
        .select_related("quiz")
        .annotate(attempt_count=Count("attempts"))
    )
    return [AssignmentRow(row, row.attempt_count) for row in rows]


def assignment_of_class(*, klass: Class, assignment_id: int) -> AssignmentRow | None:
    rows = (
        Assignment.objects.filter(klass=klass, pk=assignment_id)
        .select_related("quiz")
        .annotate(attempt_count=Count("attempts"))
    )
    row = rows.first()
    return None if row is None else AssignmentRow(row, row.attempt_count)


@dataclass(frozen=True)
class RuleChange:
    """A rule of an assignment changed once it had attempts, as the page shows it: the
    rule's name, the values as the form names them, who changed it and when."""

    assignment: Assignment  # With its quiz.
    setting: str
    before: str
    after: str
    by: str
    at: datetime


def rule_changes(assignments: list[Assignment]) -> list[tuple[RuleChange, ...]]:
    """Each assignment's history of rule changes, newest first: one query."""
    by_assignment: dict[int, list[RuleChange]] = {assignment.pk: [] for assignment in assignments}
    of = {assignment.pk: assignment for assignment in assignments}
    changes = AssignmentChange.objects.filter(assignment__in=assignments).values_list(
        "assignment_id",
        "field",
        "before",
        "after",
        "changed_by__username",
        "changed_by__first_name",
        "changed_by__last_name",
        "changed_at",
    )
    for assignment_id, field, before, after, username, first, last, at in changes:
        by_assignment[assignment_id].append(
            RuleChange(
                assignment=of[assignment_id],
                setting=_setting_name(field),
                before=_setting_value(field, before),
                after=_setting_value(field, after),
                by=f"{first} {last}".strip() or username or _("someone since deleted"),
                at=at,
            )
        )
    return [tuple(by_assignment[assignment.pk]) for assignment in assignments]


def _setting_name(field: str) -> str:
    try:
        return str(Assignment._meta.get_field(field).verbose_name)
    except LookupError:
        return field


def _setting_value(field: str, value: str) -> str:
    """A value as the form named it: a choice's label ("Highest grade") for its key, a time
    limit in minutes (kept as their number: services.rule_shown)."""
    if field == "time_limit" and value.isdigit():
        minutes = int(value)
        return ngettext("%(minutes)d minute", "%(minutes)d minutes", minutes) % {"minutes": minutes}
    try:
        choices = dict(Assignment._meta.get_field(field).flatchoices)
    except LookupError:
        return value
    return str(choices.get(value, value))


@dataclass(frozen=True)
class OverrideEntry:
    learner_id: int
    learner: str
    extra_minutes: int
    extra_attempts: int
    given_by: str
    given_at: datetime


def assignment_overrides(*, assignment: Assignment) -> list[OverrideEntry]:
    rows = assignment.overrides.order_by("learner__username").values_list(
        "learner_id",
        "learner__username",
        "learner__first_name",
        "learner__last_name",
        "extra_time",
        "extra_attempts",
        "given_by__username",
        "given_at",
    )
    return [
        OverrideEntry(
            learner_id,
            _name(username, first, last),
            int(extra.total_seconds() // 60),
            attempts,
            by or "",
            at,
        )
        for learner_id, username, first, last, extra, attempts, by, at in rows
    ]


def assignment_targets() -> list[tuple[str, str]]:
    """What an instructor may assign, as the form's choices: each published guide path
    ("guide:<id>", all its published quizzes) and each published quiz ("quiz:<id>")."""
    guides = GuidePath.objects.published().order_by("position", "pk")
    quizzes = Quiz.objects.published().order_by("pk")
    return [
        (f"guide:{guide.pk}", _("Guide path: %(title)s") % {"title": guide.title})
        for guide in guides
    ] + [(f"quiz:{quiz.pk}", _("Quiz: %(title)s") % {"title": quiz.title}) for quiz in quizzes]


def assignment_target(*, target: str) -> Quiz | GuidePath | None:
    """The published quiz or guide path a form's choice names."""
    kind, _sep, pk = target.partition(":")
    model = {"quiz": Quiz, "guide": GuidePath}.get(kind)
    if model is None or not pk.isdigit():
        return None
    return model.objects.published().filter(pk=pk).first()


@dataclass(frozen=True)
class LearnerAssignment:
    """An assignment on a learner's My progress: its class, quiz, dates, their attempts used
    of those allowed, and its state for them."""

    id: int
    class_name: str
    quiz_title: str
    opens_at: datetime | None
    closes_at: datetime | None
    used: int
    allowed: int | None  # None: unlimited.
    finished: int
    in_progress: UUID | None
    last_finished: UUID | None
    state: str  # "not_open_yet", "open", "closed" or "done".

    def attempt_url(self) -> str:
        """The attempt in progress (its results page goes on to its open question)."""
        return reverse("results", kwargs={"public_id": self.in_progress})

    def results_url(self) -> str:
        """The results of the last finished attempt."""
        return reverse("results", kwargs={"public_id": self.last_finished})


def learner_assignments(*, user: AbstractBaseUser) -> list[LearnerAssignment]:
    """The assignments of the learner's classes, soonest due first, with their attempts:
    two queries, the first submitting the learner's attempts whose time ran out (so that an
    attempt never come back to counts as finished here)."""
    now = timezone.now()
    Attempt.objects.filter(user=user, assignment__isnull=False).submit_overdue(now)
    mine = Attempt.objects.filter(assignment=OuterRef("pk"), user=user).order_by()
    extra = Override.objects.filter(assignment=OuterRef("pk"), learner=user).values(
        "extra_attempts"
    )
    rows = (
        Assignment.objects.filter(klass__memberships__learner=user)
        .select_related("quiz", "klass")
        .annotate(
            used=Coalesce(Subquery(mine.values("user").annotate(n=Count("pk")).values("n")), 0),
            finished=Coalesce(
                Subquery(
                    mine.filter(completed_at__isnull=False)
                    .values("user")
                    .annotate(n=Count("pk"))
                    .values("n")
                ),
                0,
            ),
            in_progress=Subquery(
                mine.filter(completed_at=None, abandoned_at=None).values("public_id")[:1]
            ),
            last_finished=Subquery(
                mine.filter(completed_at__isnull=False)
                .order_by("-number", "-pk")
                .values("public_id")[:1]
            ),
            extra_attempts=Coalesce(Subquery(extra), 0),
        )
        .order_by(F("closes_at").asc(nulls_last=True), "pk")
    )
    found = []
    for row in rows:
        allowed = None if row.attempt_limit is None else row.attempt_limit + row.extra_attempts
        if row.opens_at is not None and now < row.opens_at:
            state = "not_open_yet"
        elif row.in_progress is not None:
            state = "open"
        elif allowed is not None and row.used >= allowed:
            state = "done"
        elif row.closes_at is not None and now >= row.closes_at:
            state = "done" if row.finished else "closed"
        else:
            state = "open"
        found.append(
            LearnerAssignment(
                id=row.pk,
                class_name=row.klass.name,
                quiz_title=row.quiz.title,
                opens_at=row.opens_at,
                closes_at=row.closes_at,
                used=row.used,
                allowed=allowed,
                finished=row.finished,
                in_progress=row.in_progress,
                last_finished=row.last_finished,
                state=state,
            )
        )
    return found
