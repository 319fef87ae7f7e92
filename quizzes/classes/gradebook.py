"""The gradebook: a class's learners × its assignments, each cell the learner's grade by the
assignment's grading method over their finished attempts, and its CSV rows.

Grades are never stored: each read computes them from the attempts under the assignment's
rules as they are now, so a changed grading method regrades the column (its change shows in
the history). Six queries whatever the size of the class (the class, its assignments, its
learners, their overrides, their attempts at its assignments, the history); the attempts' one
streams, ordered by learner as the learners are, so that the CSV keeps its memory flat.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import chain, groupby
from operator import attrgetter, itemgetter
from typing import NamedTuple
from uuid import UUID

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import (
    BooleanField,
    Case,
    Exists,
    ExpressionWrapper,
    F,
    FloatField,
    IntegerField,
    OuterRef,
    Q,
    Subquery,
    When,
)
from django.db.models.functions import Cast, Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from quizzes.classes.selectors import RuleChange, rule_changes
from quizzes.models import (
    Assignment,
    Attempt,
    AttemptKind,
    Class,
    Grading,
    Membership,
    Override,
    grade_of,
)
from quizzes.models.attempts import credits_so_far, questions_of_quiz


class OverrideNote(NamedTuple):
    """A learner's extra time or attempts at an assignment, with who gave them and when."""

    extra_time: timedelta
    extra_attempts: int
    by: str
    at: datetime


class Cell(NamedTuple):
    """A learner's standing at an assignment."""

    grade: float | None  # In percent, by the assignment's grading method; None: no grade.
    attempts: int  # Finished attempts (an attempt past its deadline is finished).
    attempt: UUID | None  # The graded attempt, else the one in progress: its review.
    late: bool  # The graded attempt finished after the assignment closed.
    missing: bool  # Closed, and no finished attempt.
    in_progress: bool
    override: OverrideNote | None = None


EMPTY = Cell(None, 0, None, False, False, False)


@dataclass(frozen=True)
class Column:
    assignment: Assignment  # With its quiz.
    average: float | None  # Of the learners' grades.


@dataclass(frozen=True)
class LearnerRow:
    learner_id: int
    name: str
    username: str
    cells: tuple[Cell, ...]  # In the columns' order.
    mean: float | None  # Of the learner's grades (an assignment without one is left out).


@dataclass(frozen=True)
class Gradebook:
    columns: tuple[Column, ...]
    rows: tuple[LearnerRow, ...]
    mean: float | None  # Of the learners' means.

    changes: tuple[RuleChange, ...]  # Of every assignment, newest first.


def class_for_gradebook(*, class_id: int, user: AbstractBaseUser) -> tuple[Class, bool] | None:
    """The class if the user may read its gradebook, and whether they teach it: its
    instructors and superusers, and the holders of the site-wide report permission, who read
    every learner's attempts anyway. None for anyone else."""
    teaches = Q(instructors=user)
    classes = Class.objects.annotate(
        taught=Exists(Class.instructors.through.objects.filter(class_id=OuterRef("pk"), user=user))
    )
    if not (user.is_superuser or user.has_perm("quizzes.view_report")):
        classes = classes.filter(teaches)
    found = classes.filter(pk=class_id).first()
    return None if found is None else (found, found.taught or user.is_superuser)


def gradebook(*, klass: Class, now: datetime | None = None) -> Gradebook:
    """The class's whole gradebook, with the averages."""
    assignments = _assignments(klass)
    rows = tuple(learner_rows(klass=klass, assignments=assignments, now=now))
    columns = tuple(
        Column(assignment=assignment, average=_mean(row.cells[index].grade for row in rows))
        for index, assignment in enumerate(assignments)
    )
    changes = sorted(
        chain.from_iterable(rule_changes(assignments)), key=attrgetter("at"), reverse=True
    )
    return Gradebook(
        columns=columns, rows=rows, mean=_mean(row.mean for row in rows), changes=tuple(changes)
    )


def _assignments(klass: Class) -> list[Assignment]:
    return list(Assignment.objects.filter(klass=klass).select_related("quiz"))


def learner_rows(
    *, klass: Class, assignments: list[Assignment], now: datetime | None = None
) -> Iterator[LearnerRow]:
    """The class's learners by username, each with a cell per assignment: two queries, the
    attempts read as they stream."""
    now = now or timezone.now()
    learners = (
        Membership.objects.filter(klass=klass)
        .order_by("learner__username", "learner_id")
        .values_list("learner_id", "learner__username", "learner__first_name", "learner__last_name")
    )
    column = {assignment.pk: index for index, assignment in enumerate(assignments)}
    overrides = _overrides(klass, assignments)
    rows_read = _attempts(klass, assignments, now).iterator(chunk_size=4000)
    attempts = groupby(rows_read, key=itemgetter(0))
    learner_id, rows = next(attempts, (None, iter(())))
    for member_id, username, first_name, last_name in learners:
        cells = [EMPTY] * len(assignments)
        for assignment_id, graded in groupby(
            rows if learner_id == member_id else (), itemgetter(1)
        ):
            assignment = assignments[column[assignment_id]]
            cells[column[assignment_id]] = _cell(assignment, graded, now)
        for index, assignment in enumerate(assignments):
            if cells[index] is EMPTY and assignment.closes_at and assignment.closes_at < now:
                cells[index] = Cell(None, 0, None, False, True, False)
            note = overrides.get((member_id, assignment.pk))
            if note is not None:
                cells[index] = cells[index]._replace(override=note)
        if learner_id == member_id:
            learner_id, rows = next(attempts, (None, iter(())))
        yield LearnerRow(
            learner_id=member_id,
            name=f"{first_name} {last_name}".strip() or username,
            username=username,
            cells=tuple(cells),
            mean=_mean(cell.grade for cell in cells),
        )


def _overrides(klass: Class, assignments: list[Assignment]) -> dict[tuple[int, int], OverrideNote]:
    """The overrides of the class's learners at its assignments, by (learner, assignment): one
    query (a class has few)."""
    rows = Override.objects.filter(
        assignment__in=[assignment.pk for assignment in assignments],
        learner__memberships__klass=klass,
    ).values_list(
        "learner_id",
        "assignment_id",
        "extra_time",
        "extra_attempts",
        "given_by__username",
        "given_by__first_name",
        "given_by__last_name",
        "given_at",
    )
    return {
        (learner, assignment): OverrideNote(
            extra_time,
            extra_attempts,
            f"{first} {last}".strip() or username or _("someone since deleted"),
            at,
        )
        for learner, assignment, extra_time, extra_attempts, username, first, last, at in rows
    }


def _attempts(klass: Class, assignments: list[Assignment], now: datetime):
    """The attempts of the class's learners at its assignments, by learner (in the learners'
    order), assignment and number, as (learner, assignment, public id, finished, late, score,
    out of). An attempt still open past its deadline is finished at its deadline (whether or
    not it has been closed yet), scored as it stands: its score so far and its questions'
    count, which the database computes for the open ones only (`CASE`). Finished and late
    are worked out by the database too: reading 20,000 rows' dates took most of the time of
    a class of 500 (bench/gradebook.py)."""
    finished_at = Coalesce("completed_at", "deadline")
    return (
        Attempt.objects.filter(
            assignment__in=[assignment.pk for assignment in assignments],
            kind=AttemptKind.QUIZ,
            user__memberships__klass=klass,
        )
        .exclude(completed_at=None, abandoned_at__isnull=False)
        .annotate(
            finished=ExpressionWrapper(
                Q(completed_at__isnull=False) | Q(deadline__lt=now), output_field=BooleanField()
            ),
            late=ExpressionWrapper(
                Q(assignment__closes_at__lt=finished_at), output_field=BooleanField()
            ),
            points=Cast(
                Case(When(completed_at=None, then=Subquery(credits_so_far())), default=F("score")),
                output_field=FloatField(),
            ),
            out_of=Case(
                When(completed_at=None, then=Subquery(questions_of_quiz())),
                default=F("max_score"),
                output_field=IntegerField(),
            ),
        )
        .order_by("user__username", "user_id", "assignment_id", "number", "started_at", "pk")
        .values_list(
            "user_id", "assignment_id", "public_id", "finished", "late", "points", "out_of"
        )
    )


def _cell(assignment: Assignment, attempts, now: datetime) -> Cell:
    """One learner's attempts at the assignment, oldest first, made a cell."""
    finished: list[tuple[float, bool, UUID]] = []
    open_attempt = None
    for _learner, _assignment, public_id, done, late, points, out_of in attempts:
        if not done:
            open_attempt = public_id
            continue
        finished.append(((points or 0.0) * 100 / out_of if out_of else 0.0, bool(late), public_id))
    if not finished:
        missing = open_attempt is None and bool(assignment.closes_at and assignment.closes_at < now)
        return Cell(None, 0, open_attempt, False, missing, open_attempt is not None)
    percents = [percent for percent, _late, _id in finished]
    graded = _graded(finished, assignment.grading)
    return Cell(
        grade_of(percents, assignment.grading),
        len(finished),
        graded[2],
        graded[1],
        False,
        open_attempt is not None,
    )


def _graded(finished: list[tuple[float, bool, UUID]], grading: str):
    """The attempt a cell links to: the one that made the grade (the first of the highest),
    or for an average the last."""
    if grading == Grading.HIGHEST:
        return max(finished, key=itemgetter(0))
    if grading == Grading.FIRST:
        return finished[0]
    return finished[-1]


def _mean(values) -> float | None:
    kept = [value for value in values if value is not None]
    return sum(kept) / len(kept) if kept else None


# The CSV


class Marks(NamedTuple):
    """A cell's marks in words, translated once."""

    late: str
    missing: str
    in_progress: str
    override: str

    @classmethod
    def translated(cls) -> "Marks":
        return cls(
            late=pgettext("gradebook", "late"),
            missing=pgettext("gradebook", "missing"),
            in_progress=pgettext("gradebook", "in progress"),
            override=pgettext("gradebook", "override"),
        )

    def of(self, cell: Cell) -> str:
        flags = (cell.late, cell.missing, cell.in_progress, cell.override is not None)
        return ", ".join(word for word, flag in zip(self, flags, strict=True) if flag)


def csv_rows(*, klass: Class) -> Iterator[list]:
    """The gradebook as CSV rows: a header (each assignment's grade, attempts and marks), a
    row per learner, read as the attempts stream, and the class's averages last. Every label
    is translated here, before the rows stream, when the request's language is gone."""
    assignments = _assignments(klass)
    header = [_("Learner"), _("Username")]
    for assignment in assignments:
        title = assignment.quiz.title
        header += [
            _("%(quiz)s: grade (%%)") % {"quiz": title},
            _("%(quiz)s: attempts") % {"quiz": title},
            _("%(quiz)s: marks") % {"quiz": title},
        ]
    header.append(_("Mean (%)"))
    return _csv_body(klass, assignments, header, _("Class average"), Marks.translated())


def _csv_body(
    klass: Class, assignments: list[Assignment], header: list, average: str, marks: Marks
) -> Iterator[list]:
    yield header
    totals = [[0.0, 0] for _assignment in assignments]
    for row in learner_rows(klass=klass, assignments=assignments):
        line = [row.name, row.username]
        for total, cell in zip(totals, row.cells, strict=True):
            if cell.grade is not None:
                total[0] += cell.grade
                total[1] += 1
            line += [cell.grade, cell.attempts, marks.of(cell)]
        line.append(row.mean)
        yield line
    averages = [grades / count if count else None for grades, count in totals]
    yield [average, "", *(value for grade in averages for value in (grade, "", ""))]
