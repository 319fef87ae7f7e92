"""What the learner pages read, each read named for what it returns.

A learner (`Learner`) is their account or, signed out, their browser's key; a visitor with
neither has no attempts. Quiz content comes from the kept content
(quizzes/snapshots.py) under the stamp each read returns with its rows.

The attempt query, run by every page of an attempt, is compiled once per connection
(quizsite/queries.py); `attempt_for_learner_orm` is its plain ORM twin, which the tests
compare it with.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from uuid import UUID

from django.db import DEFAULT_DB_ALIAS
from django.db.models import (
    BooleanField,
    Case,
    Count,
    ExpressionWrapper,
    F,
    FloatField,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    When,
    Window,
)
from django.db.models.functions import Coalesce, RowNumber
from django.urls import reverse

from guides.models import GuidePath
from quizsite.queries import CompiledQuery, Placeholder
from quizzes.models import (
    Answer,
    Attempt,
    AttemptKind,
    Membership,
    Question,
    Quiz,
    passes,
    review_hidden,
    score_percent,
)
from quizzes.snapshots import (
    ChoiceContent,
    QuestionContent,
    QuizContent,
    choices_as_shown,
    drawn,
    quiz_content,
)


@dataclass(frozen=True)
class Learner:
    user_id: int | None  # Signed in.
    key: str | None  # Signed out: the key their browser keeps.

    @property
    def is_known(self) -> bool:
        return self.user_id is not None or bool(self.key)


@dataclass(frozen=True)
class Recorded:
    """A recorded answer: its credit (from 0 to 1, `Answer.credit`), the choices it picked,
    and its response (a numerical answer's number, `Answer.response`)."""

    credit: Decimal
    picked: frozenset[int]
    response: str | None = None

    @property
    def is_correct(self) -> bool:
        return self.credit == 1

    @property
    def key(self) -> str:
        """For the caches of the pages that show it (templates/quizzes/_answer_review.html)."""
        picks = ",".join(map(str, sorted(self.picked)))
        return picks if self.response is None else f"{picks}={self.response}"


@dataclass(frozen=True)
class Step:
    """A question of the attempt, numbered from 1, with its answer if it has one."""

    number: int
    question: QuestionContent
    recorded: Recorded | None


@dataclass(frozen=True)
class LearnerAttempt:
    attempt: Attempt
    quiz: QuizContent
    steps: tuple[Step, ...]
    # An assignment's attempt: when its review shows (ReviewShown) and when it closes.
    review: str | None = None
    closes_at: datetime | None = None
    # The allowed site whose page framed the attempt's Start (Attempt.embedded_in), or "":
    # a Retry from the frame's results is recorded as embedded there too.
    site: str = ""

    def review_hidden(self, now: datetime) -> bool:
        """Whether the pages hide the verdicts, right answers and explanations now (an
        assignment's review after its close, or never); a self-study attempt hides nothing."""
        return self.review is not None and review_hidden(self.review, self.closes_at, now)

    def is_overdue(self, now: datetime) -> bool:
        """Still open past its deadline: to be submitted as it stood (`submit_overdue`)."""
        deadline = self.attempt.deadline
        return deadline is not None and self.attempt.is_open and now >= deadline

    @property
    def first_open(self) -> int | None:
        """The number of the first question with no answer; None when all have one."""
        return next((step.number for step in self.steps if step.recorded is None), None)

    @property
    def answered_count(self) -> int:
        return sum(1 for step in self.steps if step.recorded is not None)

    @property
    def closed_reason(self) -> str | None:
        """Why the unfinished attempt takes no more answers, if it doesn't (services.py's
        AttemptClosed reasons); None for an attempt in progress or finished."""
        if self.attempt.is_finished:
            return None
        if self.attempt.abandoned_at is not None:
            return "abandoned"
        if not self.quiz.is_published and self.attempt.kind != AttemptKind.PREVIEW:
            return "unpublished"
        return None

    @property
    def passed(self) -> bool:
        return passes(self.attempt.percent, self.quiz.pass_mark)

    def choices_of(self, question: QuestionContent) -> tuple[ChoiceContent, ...]:
        """The question's choices as this attempt shows them (`snapshots.choices_as_shown`)."""
        return choices_as_shown(self.quiz, question, self.attempt)


def _learner_attempts(learner: Learner) -> QuerySet[Attempt]:
    if learner.user_id is not None:
        return Attempt.objects.filter(user=learner.user_id)
    if learner.key:
        return Attempt.objects.filter(user=None, learner_key=learner.key)
    return Attempt.objects.none()


def has_any_attempt(*, learner: Learner) -> bool:
    return _learner_attempts(learner).exists()


def in_a_class(*, user) -> bool:
    return Membership.objects.filter(learner=user).exists()


def _steps(attempt: Attempt, quiz: QuizContent, answers) -> tuple[Step, ...]:
    """The attempt's questions with the answers given, from (question_id, credit,
    response, choice_id) rows, one per pick (one with no pick for an answer that has
    none); rows with no question are an outer join's empty side."""
    graded: dict[int, Decimal] = {}
    responses: dict[int, str | None] = {}
    picked: dict[int, set[int]] = {}
    for question_id, credit, response, choice_id in answers:
        if question_id is None:
            continue
        graded[question_id] = credit
        responses[question_id] = response or None
        picks = picked.setdefault(question_id, set())
        if choice_id is not None:
            picks.add(choice_id)
    questions = quiz.questions_among(attempt.question_ids)
    if attempt.completed_at is not None:
        # Only what it asked: a question added to the quiz since is not part of it. An
        # attempt whose time ran out asked its first `max_score` questions, answered or not.
        max_score = attempt.max_score or 0
        asked = max_score if len(graded) < max_score else 0
        questions = tuple(
            question for n, question in enumerate(questions) if question.pk in graded or n < asked
        )
    return tuple(
        Step(
            number,
            drawn(question, attempt),
            Recorded(graded[question.pk], frozenset(picked[question.pk]), responses[question.pk])
            if question.pk in graded
            else None,
        )
        for number, question in enumerate(questions, 1)
    )


_ATTEMPT_FIELDS = [field.attname for field in Attempt._meta.concrete_fields]
_ANSWER_FIELDS = ["question_id", "credit", "response", "picks__choice"]
_attempt_rows = (
    Attempt.objects.filter(public_id=Placeholder("public_id"))
    .order_by()
    .values_list(
        *_ATTEMPT_FIELDS,
        "quiz__updated_at",
        "assignment__review",
        "assignment__closes_at",
        "embedded_in__origin",
        *[f"answers__{field}" for field in _ANSWER_FIELDS],
    )
)
_USER_ATTEMPT_ROWS = CompiledQuery(_attempt_rows.filter(user=Placeholder("user")))
_KEY_ATTEMPT_ROWS = CompiledQuery(
    _attempt_rows.filter(user=None, learner_key=Placeholder("learner_key"))
)


def attempt_for_learner(*, public_id: UUID, learner: Learner) -> LearnerAttempt | None:
    """The learner's attempt with its quiz and answers, in one query; None if not theirs."""
    if learner.user_id is not None:
        rows = _USER_ATTEMPT_ROWS(user=learner.user_id, public_id=public_id)
    elif learner.key:
        rows = _KEY_ATTEMPT_ROWS(learner_key=learner.key, public_id=public_id)
    else:
        return None
    if not rows:
        return None
    first = rows[0]
    attempt = Attempt.from_db(
        DEFAULT_DB_ALIAS, _ATTEMPT_FIELDS, [getattr(first, name) for name in _ATTEMPT_FIELDS]
    )
    quiz = quiz_content(quiz_id=attempt.quiz_id, updated_at=first.quiz__updated_at)
    answers = [
        (
            row.answers__question_id,
            row.answers__credit,
            row.answers__response,
            row.answers__picks__choice,
        )
        for row in rows
    ]
    steps = _steps(attempt, quiz, answers)
    return LearnerAttempt(
        attempt,
        quiz,
        steps,
        first.assignment__review,
        first.assignment__closes_at,
        first.embedded_in__origin or "",
    )


def attempt_for_learner_orm(*, public_id: UUID, learner: Learner) -> LearnerAttempt | None:
    """`attempt_for_learner` in the plain ORM (two queries), for the tests to compare."""
    attempts = _learner_attempts(learner).select_related("quiz", "assignment", "embedded_in")
    attempt = attempts.filter(public_id=public_id).first()
    if attempt is None:
        return None
    quiz = quiz_content(quiz_id=attempt.quiz_id, updated_at=attempt.quiz.updated_at)
    rules = attempt.assignment
    return LearnerAttempt(
        attempt,
        quiz,
        attempt_steps(attempt=attempt, quiz=quiz),
        rules and rules.review,
        rules and rules.closes_at,
        attempt.embedded_in.origin if attempt.embedded_in else "",
    )


def attempt_steps(*, attempt: Attempt, quiz: QuizContent) -> tuple[Step, ...]:
    """The attempt's steps read again, after an answer recorded since (another tab)."""
    return _steps(attempt, quiz, attempt.answers.order_by().values_list(*_ANSWER_FIELDS))


def quiz_for_learner(*, slug: str, can_preview: bool) -> QuizContent | None:
    """The quiz at `slug` if it is published, or if the visitor may preview it (editors)."""
    quizzes = Quiz.objects.filter(slug=slug)
    if not can_preview:
        quizzes = quizzes.filter(is_published=True)
    rows = list(quizzes.order_by().values_list("pk", "updated_at"))
    if not rows:
        return None
    ((quiz_id, updated_at),) = rows
    return quiz_content(quiz_id=quiz_id, updated_at=updated_at)


@dataclass(frozen=True)
class PastAttempt:
    """One of the learner's attempts at a quiz, as My progress lists it."""

    public_id: UUID
    kind: str
    started_at: datetime
    completed_at: datetime | None
    score: Decimal | None  # The sum of its answers' credits.
    max_score: int | None
    answered: int
    question_count: int  # The attempt's: a practice attempt asks some of the quiz's.
    pass_mark: int

    @property
    def is_finished(self) -> bool:
        return self.completed_at is not None

    @property
    def is_practice(self) -> bool:
        return self.kind == AttemptKind.PRACTICE

    @property
    def is_scored(self) -> bool:
        """A quiz attempt, whose score is the learner's at the quiz: not a practice one, nor
        one at a single question (embedded in a guide's page)."""
        return self.kind not in (AttemptKind.PRACTICE, AttemptKind.QUESTION)

    @property
    def next_number(self) -> int:
        """The number of the question to go on with, while it is in progress."""
        return min(self.answered + 1, self.question_count)

    @property
    def percent(self) -> int | None:
        return score_percent(self.score, self.max_score)

    @property
    def passed(self) -> bool:
        return passes(self.percent, self.pass_mark)

    def get_absolute_url(self) -> str:
        if self.is_finished:
            return reverse("results", kwargs={"public_id": self.public_id})
        return reverse("question", kwargs={"public_id": self.public_id, "number": self.next_number})


LISTED = 10  # My progress lists a quiz's newest attempts, at most this many.


@dataclass(frozen=True)
class QuizStatus:
    """Where the learner is with a quiz: the attempt in progress (to resume), the best and
    the last score of the finished quiz attempts (practice attempts don't score), passed or
    not, and the newest attempts not abandoned (at most LISTED, the newest first), and
    whether there are earlier ones.

    Read from those few attempts only (`_status_rows`), so that a page costs the same for a
    learner with a thousand attempts at the quiz as for one with a single attempt."""

    attempts: tuple[PastAttempt, ...]  # The newest, at most LISTED.
    in_progress: PastAttempt | None = None
    best_attempt: PastAttempt | None = None  # The finished quiz attempt of the best score.
    last_attempt: PastAttempt | None = None  # The newest finished quiz attempt.
    earlier: bool = False  # There are attempts not abandoned older than those listed.

    @property
    def best(self) -> int | None:
        return self.best_attempt.percent if self.best_attempt else None

    @property
    def last(self) -> int | None:
        return self.last_attempt.percent if self.last_attempt else None

    @property
    def passed(self) -> bool:
        return self.best_attempt is not None and self.best_attempt.passed

    @property
    def is_done(self) -> bool:
        return self.last_attempt is not None

    @property
    def state(self) -> str:
        """ "in_progress", "done" or "not_started", for the templates."""
        if self.in_progress is not None:
            return "in_progress"
        return "done" if self.is_done else "not_started"


NOT_STARTED = QuizStatus(attempts=())


def _status_rows(attempts: QuerySet[Attempt]) -> QuerySet:
    """The rows `quiz_statuses` folds: of each quiz, the self-study attempts not abandoned
    (an assignment's are the class's, listed apart) that its status shows, the newest first:
    the LISTED newest, the one in progress, the newest finished quiz attempt and the best
    (of the highest score), each with its answer count if unfinished and its quiz's question
    count, and one more of the newest if there are earlier ones.

    The database ranks the learner's attempts at the quiz by windows over their rows alone
    (the index on the learner) and reads the answers and the question count of the few
    rows kept; answers are counted for the attempts in progress alone (before, every
    attempt was joined to all its answers, and its question count read for each).
    `quiz_statuses` then picks the last and the best among those rows: the best attempt
    ranks first of the finished ones by score, the newest of a tie, as it does here."""
    question_count = Subquery(
        Question.objects.filter(quiz=OuterRef("quiz"))
        .order_by()
        .values("quiz")
        .annotate(n=Count("pk"))
        .values("n"),
        output_field=IntegerField(),
    )
    answered = Subquery(
        Answer.objects.filter(attempt=OuterRef("pk"))
        .order_by()
        .values("attempt")
        .annotate(n=Count("pk"))
        .values("n"),
        output_field=IntegerField(),
    )
    scored = ExpressionWrapper(
        Q(completed_at__isnull=False) & ~Q(kind__in=[AttemptKind.PRACTICE, AttemptKind.QUESTION]),
        BooleanField(),
    )
    ratio = ExpressionWrapper(F("score") * 1.0 / F("max_score"), output_field=FloatField())
    newest = [F("started_at").desc(), F("pk").desc()]
    kept = attempts.filter(abandoned_at=None, assignment=None)
    shown = (
        kept.alias(
            is_scored=scored,
            ratio=ratio,
            rank=Window(RowNumber(), partition_by=[F("quiz")], order_by=newest),
            scored_rank=Window(RowNumber(), partition_by=[F("quiz"), scored], order_by=newest),
            best_rank=Window(
                RowNumber(),
                partition_by=[F("quiz"), scored],
                order_by=[F("ratio").desc(nulls_last=True), *newest],
            ),
        )
        .filter(
            Q(rank__lte=LISTED + 1)
            | Q(completed_at=None, kind=AttemptKind.QUIZ)
            | Q(is_scored=True, scored_rank=1)
            | Q(is_scored=True, best_rank=1)
        )
        .order_by()
        .values("pk")
    )
    return (
        Attempt.objects.filter(pk__in=shown)
        .annotate(
            answered=Case(When(completed_at=None, then=Coalesce(answered, 0)), default=0),
            quiz_questions=question_count,
        )
        .order_by("-started_at", "-pk")
        .values_list(
            "quiz_id",
            "public_id",
            "kind",
            "started_at",
            "completed_at",
            "score",
            "max_score",
            "answered",
            "quiz_questions",
            "question_ids",
            "quiz__pass_mark",
        )
    )


# The quiz page's status, at one quiz: compiled once per connection, as it is read by every
# learner who opens a quiz to start it.
_USER_QUIZ_STATUS = CompiledQuery(
    _status_rows(Attempt.objects.filter(user=Placeholder("user"), quiz=Placeholder("quiz")))
)
_KEY_QUIZ_STATUS = CompiledQuery(
    _status_rows(
        Attempt.objects.filter(
            user=None, learner_key=Placeholder("learner_key"), quiz=Placeholder("quiz")
        )
    )
)


def quiz_statuses(*, learner: Learner, quiz_ids: Iterable[int]) -> dict[int, QuizStatus]:
    """The learner's status at each of these quizzes that they attempted (one query, none for
    a visitor with neither account nor key); a quiz they never started is not in it."""
    quiz_ids = list(quiz_ids)
    if not learner.is_known or not quiz_ids:
        return {}
    if len(quiz_ids) > 1:
        rows = _status_rows(_learner_attempts(learner).filter(quiz__in=quiz_ids))
    elif learner.user_id is not None:
        rows = _USER_QUIZ_STATUS(user=learner.user_id, quiz=quiz_ids[0])
    else:
        rows = _KEY_QUIZ_STATUS(learner_key=learner.key, quiz=quiz_ids[0])
    by_quiz: dict[int, dict] = {}
    for quiz_id, *fields, answered, quiz_questions, question_ids, pass_mark in rows:
        count = len(question_ids) if question_ids is not None else quiz_questions or 0
        attempt = PastAttempt(*fields, answered, count, pass_mark)
        found = by_quiz.setdefault(quiz_id, {"attempts": []})
        # The rows come the newest first: the LISTED newest, then at most one more of them
        # (there are earlier ones), then the older ones the status needs.
        if len(found["attempts"]) < LISTED:
            found["attempts"].append(attempt)
        elif len(found["attempts"]) == LISTED:
            found["earlier"] = True
        if not attempt.is_scored:
            continue
        if not attempt.is_finished:
            found.setdefault("in_progress", attempt)
            continue
        found.setdefault("last_attempt", attempt)
        best = found.get("best_attempt")
        if best is None or attempt.score / attempt.max_score > best.score / best.max_score:
            found["best_attempt"] = attempt
    return {
        quiz_id: QuizStatus(**{**found, "attempts": tuple(found["attempts"])})
        for quiz_id, found in by_quiz.items()
    }


@dataclass(frozen=True)
class Catalogue:
    """What the home page lists: published guide paths, each with its published quizzes in
    `published_quizzes`, and the published quizzes that no published guide path links to."""

    guide_paths: QuerySet[GuidePath]
    unlinked_quizzes: QuerySet[Quiz]


def published_quizzes() -> QuerySet[Quiz]:
    """Published quizzes with their `question_count`."""
    return Quiz.objects.published().annotate(question_count=Count("questions"))


def catalogue() -> Catalogue:
    quizzes = published_quizzes()
    guides = GuidePath.objects.published().prefetch_related(
        Prefetch("quizzes", queryset=quizzes, to_attr="published_quizzes")
    )
    return Catalogue(guides, quizzes.exclude(guide_paths__is_published=True))


@dataclass(frozen=True)
class QuizProgress:
    quiz: Quiz  # With its `question_count`.
    status: QuizStatus


@dataclass(frozen=True)
class GuideProgress:
    """A guide path is complete when the learner passed each of its quizzes."""

    guide: GuidePath
    quizzes: tuple[QuizProgress, ...]

    @property
    def passed_count(self) -> int:
        return sum(1 for item in self.quizzes if item.status.passed)

    @property
    def is_complete(self) -> bool:
        return bool(self.quizzes) and self.passed_count == len(self.quizzes)


@dataclass(frozen=True)
class Progress:
    """My progress: every published guide path with its published quizzes, then the
    published quizzes no guide path links to, each with the learner's status."""

    guides: tuple[GuideProgress, ...]
    other_quizzes: tuple[QuizProgress, ...]

    @property
    def has_attempts(self) -> bool:
        items = [*self.other_quizzes, *(item for g in self.guides for item in g.quizzes)]
        return any(item.status.attempts for item in items)


def learner_progress(*, learner: Learner) -> Progress:
    """Four queries, whatever the guide paths, quizzes and attempts: the guide paths, their
    quizzes, the quizzes of none, and the learner's attempts at them all."""
    listing = catalogue()
    guides = list(listing.guide_paths)
    others = list(listing.unlinked_quizzes)
    quiz_ids = {quiz.pk for quiz in others} | {
        quiz.pk for guide in guides for quiz in guide.published_quizzes
    }
    statuses = quiz_statuses(learner=learner, quiz_ids=quiz_ids)

    def progress_of(quizzes) -> tuple[QuizProgress, ...]:
        return tuple(QuizProgress(quiz, statuses.get(quiz.pk, NOT_STARTED)) for quiz in quizzes)

    return Progress(
        guides=tuple(
            GuideProgress(guide, progress_of(guide.published_quizzes)) for guide in guides
        ),
        other_quizzes=progress_of(others),
    )
