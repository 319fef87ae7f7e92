"""What learners record: attempts, their answers and picks, and how a score is counted."""

import hashlib
import uuid
from datetime import timedelta
from decimal import ROUND_HALF_UP, Decimal

from django.conf import settings
from django.db import models
from django.db.models import Count, F, OuterRef, Q, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.dispatch import Signal
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from quizzes.models.classes import Assignment
from quizzes.models.content import Choice, Question, Quiz

CREDIT_DIGITS, CREDIT_PLACES = 6, 5
PARTIAL_CREDIT_ONLY_SEVERAL = _(
    "Only a question answered by several picks (multiple choice) gives partial credit."
)
_CREDIT_STEP = Decimal(1).scaleb(-CREDIT_PLACES)

# Sent (keyword `attempt`) once the transaction that finished an attempt commits. The learner
# flow may not import what reacts to it (the LMS's grade passback, quizzes.lti, sits above it).
attempt_finished = Signal()


def credit_of(score: float) -> Decimal:
    """A kind's grade (0 to 1) as Answer.credit keeps it: to 5 decimals, within 0 and 1."""
    credit = Decimal(str(score)).quantize(_CREDIT_STEP, rounding=ROUND_HALF_UP)
    return min(max(credit, Decimal(0)), Decimal(1))


def score_percent(score: Decimal | int | None, max_score: int | None) -> int | None:
    """A score out of `max_score` in whole percent; None for an unscored attempt."""
    if score is None or not max_score:
        return None
    return round(100 * score / max_score)


def passes(percent: int | None, pass_mark: int) -> bool:
    return percent is not None and percent >= pass_mark


class AttemptKind(models.TextChoices):
    QUIZ = "quiz", _("Quiz")
    PRACTICE = "practice", _("Practice")  # The questions missed in an earlier attempt.
    PREVIEW = "preview", _("Editor's preview")  # Of a quiz not published yet: not reported.
    # One question of the quiz, embedded on its own in a guide's page (quizzes/embed).
    QUESTION = "question", _("One question")


def credits_so_far() -> models.QuerySet:
    """A subquery: the sum of the outer attempt's answers' credits (its score as it stands)."""
    return (
        Answer.objects.filter(attempt=OuterRef("pk"))
        .order_by()
        .values("attempt")
        .annotate(total=Sum("credit"))
        .values("total")
    )


def questions_of_quiz() -> models.QuerySet:
    """A subquery: the number of questions of the outer attempt's quiz (what it is out of)."""
    return (
        Question.objects.filter(quiz=OuterRef("quiz"))
        .order_by()
        .values("quiz")
        .annotate(n=Count("pk"))
        .values("n")
    )


class AttemptQuerySet(models.QuerySet):
    def overdue(self, now) -> "AttemptQuerySet":
        """Open attempts whose deadline has passed: the server takes no more of their answers."""
        return self.filter(deadline__lte=now, completed_at=None, abandoned_at=None)

    def submit_overdue(self, now) -> int:
        """Submit these attempts that are overdue as they stood at their deadline: finished
        then, scored with the answers given in time (out of their quiz's questions). Pages
        that read attempts of an assignment call it first, so that an attempt its learner
        never came back to counts as finished without any scheduled job. One UPDATE."""
        return self.overdue(now).update(
            completed_at=F("deadline"),
            score=Coalesce(
                Subquery(credits_so_far(), output_field=models.DecimalField()), Value(Decimal(0))
            ),
            max_score=Coalesce(
                Subquery(questions_of_quiz(), output_field=models.IntegerField()), 0
            ),
        )


class Attempt(models.Model):
    public_id = models.UUIDField(_("public id"), default=uuid.uuid4, unique=True, editable=False)
    quiz = models.ForeignKey(
        Quiz, on_delete=models.PROTECT, related_name="attempts", verbose_name=_("quiz")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="attempts",
        verbose_name=_("learner"),
    )
    # Anonymous learners own their attempts through a random key in a signed cookie of their
    # browser (quizzes/learning/identity.py), so that they need no session, and no query for one.
    learner_key = models.CharField(_("anonymous learner"), max_length=40, blank=True, db_index=True)
    language = models.CharField(_("language"), max_length=10)
    started_at = models.DateTimeField(_("started"), auto_now_add=True)
    completed_at = models.DateTimeField(_("completed"), null=True, blank=True)
    # The sum of its answers' credits (2.5 of 4), so a fraction; max_score is its questions.
    score = models.DecimalField(_("score"), max_digits=12, decimal_places=5, null=True, blank=True)
    max_score = models.PositiveIntegerField(_("out of"), null=True, blank=True)
    # The learner's first attempt at this quiz (a signed-in learner is their account, an
    # anonymous one their browser's key), set when it starts so that reports filter on a column.
    is_first = models.BooleanField(_("first attempt"), default=False, editable=False)
    kind = models.CharField(
        _("kind"), max_length=10, choices=AttemptKind, default=AttemptKind.QUIZ, editable=False
    )
    # The questions a practice or one-question attempt asks, in the quiz's order; None: every
    # question.
    question_ids = models.JSONField(_("questions"), null=True, blank=True, editable=False)
    # Left for a new attempt ("Start over"): no longer the learner's attempt in progress.
    abandoned_at = models.DateTimeField(_("abandoned"), null=True, blank=True, editable=False)
    # An attempt at a class's assignment, under its rules; None: self-study.
    assignment = models.ForeignKey(
        Assignment,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="attempts",
        verbose_name=_("assignment"),
        editable=False,
    )
    # The learner's attempts at the assignment are numbered 1, 2…, so that parallel Starts
    # can't both take the last attempt allowed: the second one's number is taken.
    number = models.PositiveSmallIntegerField(
        _("attempt number"), null=True, blank=True, editable=False
    )
    # When the server stops taking its answers and submits it as it stands: its start plus
    # the time limit (and the learner's extra time), or the assignment's close if sooner.
    deadline = models.DateTimeField(_("deadline"), null=True, blank=True, editable=False)

    # Started in a frame on another site's page: the allowed origin it was embedded by
    # (quizzes/embed); None: on the site itself, or a site the browser did not tell.
    embedded_in = models.ForeignKey(
        "quizzes.EmbedOrigin",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="attempts",
        verbose_name=_("embedded in"),
        editable=False,
    )

    objects = AttemptQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at", "pk"]
        verbose_name = _("attempt")
        verbose_name_plural = _("attempts")
        # Whatever the races (a double click on Start, two tabs), a learner has one first
        # attempt at a quiz, and one attempt of each kind in progress.
        constraints = [
            models.UniqueConstraint(
                fields=["quiz", "user"],
                condition=Q(is_first=True, user__isnull=False),
                name="attempt_first_once_per_account",
            ),
            models.UniqueConstraint(
                fields=["quiz", "learner_key"],
                condition=Q(is_first=True, user__isnull=True),
                name="attempt_first_once_per_key",
            ),
            models.UniqueConstraint(
                fields=["quiz", "user", "kind"],
                condition=Q(
                    completed_at=None, abandoned_at=None, user__isnull=False, assignment=None
                ),
                name="attempt_one_open_per_account",
            ),
            models.UniqueConstraint(
                fields=["quiz", "learner_key", "kind"],
                condition=Q(completed_at=None, abandoned_at=None, user__isnull=True),
                name="attempt_one_open_per_key",
            ),
            models.UniqueConstraint(
                fields=["assignment", "user"],
                condition=Q(completed_at=None, abandoned_at=None, assignment__isnull=False),
                name="attempt_one_open_per_assignment",
            ),
            models.UniqueConstraint(
                fields=["assignment", "user", "number"],
                condition=Q(assignment__isnull=False),
                name="attempt_number_once_per_assignment",
            ),
        ]
        # Reports filter by dates.
        indexes = [
            models.Index(fields=["quiz", "started_at"], name="attempt_quiz_started"),
            # A report's latest completed attempts (the anonymous learners' last score).
            models.Index(fields=["quiz", "completed_at"], name="attempt_quiz_completed"),
        ]

    def __str__(self) -> str:
        return str(self.public_id)

    def get_absolute_url(self) -> str:
        return reverse("results", kwargs={"public_id": self.public_id})

    @property
    def is_finished(self) -> bool:
        return self.completed_at is not None

    @property
    def is_open(self) -> bool:
        """Still the learner's attempt in progress: neither finished nor abandoned."""
        return self.completed_at is None and self.abandoned_at is None

    @property
    def percent(self) -> int | None:
        return score_percent(self.score, self.max_score)

    @property
    def timed_out(self) -> bool:
        """Submitted by the server at its deadline, as it stood (its time ran out)."""
        return self.deadline is not None and self.completed_at == self.deadline

    @property
    def time_taken(self) -> timedelta | None:
        """From start to finish; None while unfinished."""
        if self.completed_at is None:
            return None
        return self.completed_at - self.started_at

    @property
    def passed(self) -> bool:
        return passes(self.percent, self.quiz.pass_mark)

    def choice_order_key(self, choice: Choice) -> str:
        """A stable per-attempt order, so shuffled choices stay put across reloads."""
        return hashlib.sha256(f"{self.public_id}:{choice.pk}".encode()).hexdigest()

    def question_url(self, number: int) -> str:
        return reverse("question", kwargs={"public_id": self.public_id, "number": number})


class Answer(models.Model):
    attempt = models.ForeignKey(
        Attempt, on_delete=models.CASCADE, related_name="answers", verbose_name=_("attempt")
    )
    question = models.ForeignKey(
        Question, on_delete=models.PROTECT, related_name="answers", verbose_name=_("question")
    )
    choices = models.ManyToManyField(
        Choice, through="AnswerChoice", related_name="answers", verbose_name=_("chosen choices")
    )
    # The one choice of an answer that picked one (every answer while questions are single
    # choice), kept besides its pick so that the reports count choices over the answers alone,
    # without joining the picks (bench/REPORTS.md). None for an answer with several picks.
    choice = models.ForeignKey(
        Choice,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("chosen choice"),
    )
    # What an answer not made of picks holds (`Kind.response`): a numerical answer's number
    # as a plain decimal ("1024", "0.001"), its choice and pick being the first choice it
    # matches, if any. Empty for an answer by picks.
    response = models.CharField(_("response"), max_length=2000, blank=True, default="")
    # The answer's score from its kind's `grade`, a fraction from 0 to 1 (0.5: half right);
    # `is_correct` is credit == 1, kept as a column for the filters that ask for it.
    # A calculated question's values as the attempt drew them (`calculated.variant_key`),
    # for the reports to count answers by variant; "" for other kinds.
    variant = models.CharField(_("variant"), max_length=500, blank=True, default="", editable=False)
    credit = models.DecimalField(
        _("credit"), max_digits=CREDIT_DIGITS, decimal_places=CREDIT_PLACES, default=0
    )
    is_correct = models.BooleanField(_("correct"))
    answered_at = models.DateTimeField(_("answered"), auto_now_add=True)

    class Meta:
        verbose_name = _("answer")
        verbose_name_plural = _("answers")
        ordering = ["answered_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["attempt", "question"], name="answer_once_per_question"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.attempt} / {self.question_id}"


class AnswerChoice(models.Model):
    """A choice picked in an answer; PROTECT keeps a picked choice from being deleted."""

    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="picks")
    choice = models.ForeignKey(Choice, on_delete=models.PROTECT, related_name="picks")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["answer", "choice"], name="answer_choice_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.answer} / {self.choice_id}"
