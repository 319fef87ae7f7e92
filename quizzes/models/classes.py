"""Classes: an instructor's groups of learners."""

from collections.abc import Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

# A class's join code, read aloud and typed: no 0/O, 1/I/L or U/V to tell apart.
CLASS_CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTWXYZ"
CLASS_CODE_LENGTH = 8


def class_code_shown(code: str) -> str:
    """A code as people read it, in two groups: "K7QX-29MF"."""
    half = len(code) // 2
    return f"{code[:half]}-{code[half:]}"


def class_code_typed(typed: str) -> str:
    """A typed code as the database keeps it: capitals, without the dash or spaces."""
    return "".join(typed.split()).replace("-", "").upper()


class ClassQuerySet(models.QuerySet):
    def taught_by(self, user) -> "ClassQuerySet":
        """The classes a user may see and change: their own, or every class for a superuser."""
        return self if user.is_superuser else self.filter(instructors=user)


class Class(models.Model):
    """An instructor's group of learners, who join it by its link or its code.

    Its instructors assign it quizzes (Assignment); an LMS's context (LTI 1.3) is a class too.
    """

    name = models.CharField(_("name"), max_length=200)
    instructors = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="classes_taught", verbose_name=_("instructors")
    )
    # Eight characters of CLASS_CODE_ALPHABET, kept without the dash that shows it grouped.
    code = models.CharField(_("join code"), max_length=CLASS_CODE_LENGTH, unique=True)
    # The join link's secret: unguessable, where the code is short enough to be guessed but
    # for the rate limit on typing it.
    token = models.CharField(_("join link token"), max_length=64, unique=True)
    joining_open = models.BooleanField(_("joining open"), default=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    objects = ClassQuerySet.as_manager()

    class Meta:
        ordering = ["name", "pk"]
        verbose_name = _("class")
        verbose_name_plural = _("classes")

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("class_detail", kwargs={"class_id": self.pk})

    @property
    def code_shown(self) -> str:
        return class_code_shown(self.code)

    def join_url(self) -> str:
        return reverse("class_join_link", kwargs={"token": self.token})


class Membership(models.Model):
    """A learner in a class. Removing them deletes this row only: their attempts stay."""

    klass = models.ForeignKey(
        Class, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("class")
    )
    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="memberships",
        verbose_name=_("learner"),
    )
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)

    class Meta:
        ordering = ["joined_at", "pk"]
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        constraints = [
            models.UniqueConstraint(fields=["klass", "learner"], name="membership_once_per_class"),
        ]

    def __str__(self) -> str:
        return f"{self.klass_id} / {self.learner_id}"


class Grading(models.TextChoices):
    """How a learner's grade at an assignment comes from their finished attempts (Moodle's)."""

    HIGHEST = "highest", _("Highest grade")
    FIRST = "first", _("First attempt")
    LAST = "last", _("Last attempt")
    AVERAGE = "average", _("Average grade")


def grade_of(percents: Sequence[float], grading: str) -> float | None:
    """The grade of finished attempts' percents, oldest first; None without any."""
    if not percents:
        return None
    match grading:
        case Grading.FIRST:
            return percents[0]
        case Grading.LAST:
            return percents[-1]
        case Grading.AVERAGE:
            return sum(percents) / len(percents)
    return max(percents)


class ReviewShown(models.TextChoices):
    """When a learner of an assignment sees the review: their answers, the right ones, the
    explanations (Moodle's review options, reduced to what a learner here is shown)."""

    IMMEDIATELY = "immediately", _("Right after each answer")
    AFTER_CLOSE = "after_close", _("After the assignment closes")
    NEVER = "never", _("Never")


def review_hidden(review: str, closes_at: datetime | None, now: datetime) -> bool:
    """Whether an attempt at an assignment of these review rules hides, at `now`, whether
    each answer was right, the right answers and the explanations (its score shows)."""
    if review == ReviewShown.NEVER:
        return True
    if review == ReviewShown.AFTER_CLOSE:
        return closes_at is None or now < closes_at
    return False


class Assignment(models.Model):
    """A quiz a class is to take, under rules the server keeps: when it opens and closes,
    how long an attempt may last, how many attempts, how they make a grade, and when the
    review shows. Assigning a guide path assigns each of its quizzes.

    An attempt at an assignment is an Attempt with `assignment` set; one without is
    self-study, which keeps working as it always has.
    """

    klass = models.ForeignKey(
        Class, on_delete=models.CASCADE, related_name="assignments", verbose_name=_("class")
    )
    quiz = models.ForeignKey(
        "quizzes.Quiz", on_delete=models.PROTECT, related_name="assignments", verbose_name=_("quiz")
    )
    opens_at = models.DateTimeField(_("opens"), null=True, blank=True)
    closes_at = models.DateTimeField(_("closes"), null=True, blank=True)
    time_limit = models.DurationField(_("time limit"), null=True, blank=True)
    attempt_limit = models.PositiveSmallIntegerField(
        _("attempts allowed"), null=True, blank=True, help_text=_("Empty: unlimited.")
    )
    grading = models.CharField(
        _("grading method"), max_length=10, choices=Grading, default=Grading.HIGHEST
    )
    review = models.CharField(
        _("review shown"), max_length=12, choices=ReviewShown, default=ReviewShown.IMMEDIATELY
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["klass", "closes_at", "pk"]
        verbose_name = _("assignment")
        verbose_name_plural = _("assignments")
        constraints = [
            models.CheckConstraint(
                condition=Q(opens_at=None) | Q(closes_at=None) | Q(closes_at__gt=F("opens_at")),
                name="assignment_closes_after_opening",
                violation_error_message=_("An assignment closes after it opens."),
            ),
            models.CheckConstraint(
                condition=Q(time_limit=None) | Q(time_limit__gt=timedelta(0)),
                name="assignment_time_limit_above_0",
                violation_error_message=_("A time limit is longer than nothing."),
            ),
            models.CheckConstraint(
                condition=Q(attempt_limit=None) | Q(attempt_limit__gt=0),
                name="assignment_attempt_limit_above_0",
                violation_error_message=_("An assignment allows at least one attempt."),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.klass} / {self.quiz}"

    def deadline_for(self, *, started_at: datetime, extra_time: timedelta) -> datetime | None:
        """When an attempt started then stops taking answers: its start plus the time limit
        and the learner's extra time, or the close if that comes first; None with neither."""
        ends = [self.closes_at] if self.closes_at is not None else []
        if self.time_limit is not None:
            ends.append(started_at + self.time_limit + extra_time)
        return min(ends, default=None)

    @property
    def time_limit_minutes(self) -> int | None:
        return None if self.time_limit is None else int(self.time_limit.total_seconds() // 60)

    def review_hidden_at(self, now: datetime) -> bool:
        """Whether a learner's attempt hides its verdicts, right answers and explanations now."""
        return review_hidden(self.review, self.closes_at, now)


class Override(models.Model):
    """One learner's exception to an assignment's rules: more time, more attempts, and who
    gave it when."""

    assignment = models.ForeignKey(
        Assignment, on_delete=models.CASCADE, related_name="overrides", verbose_name=_("assignment")
    )
    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="overrides",
        verbose_name=_("learner"),
    )
    extra_time = models.DurationField(_("extra time"), default=timedelta(0))
    extra_attempts = models.PositiveSmallIntegerField(_("extra attempts"), default=0)
    given_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("given by"),
    )
    given_at = models.DateTimeField(_("given"), auto_now=True)

    class Meta:
        ordering = ["given_at", "pk"]
        verbose_name = _("override")
        verbose_name_plural = _("overrides")
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "learner"], name="override_once_per_learner"
            ),
            models.CheckConstraint(
                condition=Q(extra_time__gte=timedelta(0)),
                name="override_extra_time_not_negative",
                violation_error_message=_("Extra time is not negative."),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.assignment_id} / {self.learner_id}"


class AssignmentChange(models.Model):
    """A change of an assignment's rules once it had attempts (its grading method, say), kept
    for the gradebook's history: the grades it shows are recomputed by the new rules."""

    assignment = models.ForeignKey(
        Assignment, on_delete=models.CASCADE, related_name="changes", verbose_name=_("assignment")
    )
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("changed by"),
    )
    changed_at = models.DateTimeField(_("changed"), auto_now_add=True)
    # The field's name, and its value before and after as the form showed them.
    field = models.CharField(_("setting"), max_length=40)
    before = models.CharField(_("before"), max_length=200, blank=True)
    after = models.CharField(_("after"), max_length=200, blank=True)

    class Meta:
        ordering = ["-changed_at", "-pk"]
        verbose_name = _("assignment change")
        verbose_name_plural = _("assignment changes")

    def __str__(self) -> str:
        return f"{self.assignment_id}: {self.field}"
