"""Writes that span models: attempts, answers and regrading."""

import secrets
import uuid
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from types import SimpleNamespace

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, models, transaction
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    FloatField,
    IntegerField,
    Max,
    OuterRef,
    Q,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.functions import Cast, Coalesce, Greatest, NullIf, Round
from django.utils import timezone
from django.utils.translation import get_language

from quizsite.queries import CompiledInsert, CompiledQuery, Placeholder
from quizzes import kinds
from quizzes.kinds import calculated
from quizzes.kinds.base import GradedQuestion
from quizzes.kinds.numerical import plain
from quizzes.models import (
    CREDIT_PLACES,
    Answer,
    AnswerChoice,
    Assignment,
    Attempt,
    AttemptKind,
    Choice,
    Membership,
    Override,
    Question,
    Quiz,
    attempt_finished,
    credit_of,
)
from quizzes.snapshots import ChoiceContent, QuestionContent, QuizContent, Text


class AlreadyAnswered(Exception):
    """The question already has an answer in this attempt; nothing was recorded."""


class AttemptClosed(Exception):
    """The attempt takes no more answers: it was abandoned for a new one, or its quiz was
    unpublished since it started."""

    ABANDONED = "abandoned"
    UNPUBLISHED = "unpublished"

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class TimeUp(Exception):
    """The answer came after the attempt's deadline: it was not recorded, and the attempt is
    submitted as it stood at its deadline."""


class NotOpenYet(Exception):
    """An earlier question of the attempt is unanswered: questions are answered in order."""

    def __init__(self, first_open: int):
        super().__init__(first_open)
        self.first_open = first_open  # The number of the question to answer first.


def _learner(user: AbstractBaseUser | None, learner_key: str) -> dict:
    """A signed-in learner's attempts are their account's; an anonymous one's their key's."""
    if user is not None and user.is_authenticated:
        return {"user": user}
    if learner_key:
        return {"user": None, "learner_key": learner_key}
    raise ValueError("An anonymous learner's attempt needs their key.")


def attempt_start(
    *,
    quiz: Quiz | QuizContent,
    user: AbstractBaseUser | None,
    learner_key: str = "",
    kind: str = AttemptKind.QUIZ,
    question_ids: list[int] | None = None,
    start_over: bool = False,
    embedded_in: int | None = None,
) -> Attempt:
    """The learner's attempt of this kind in progress at the quiz, or a new one.

    `embedded_in` is the allowed origin (EmbedOrigin's id) whose page framed the Start, kept
    on a new attempt (one resumed keeps where it started).

    `start_over` abandons the attempt in progress first ("Start over"); it and its answers
    stay recorded. A new quiz attempt is marked as the learner's first at this quiz when it
    is (reports). The database keeps one attempt in progress and one first attempt per
    learner, so of two starts racing (a double click, two tabs) one creates it and the
    other resumes it.
    """
    learner = _learner(user, learner_key)
    try:
        with transaction.atomic():
            if start_over:
                Attempt.objects.filter(
                    quiz=quiz.pk,
                    kind=kind,
                    completed_at=None,
                    abandoned_at=None,
                    assignment=None,
                    **learner,
                ).update(abandoned_at=timezone.now())
            return _open_or_new(quiz, learner, kind, question_ids, embedded_in)
    except IntegrityError:  # Another start won the race: take what it made.
        return _open_or_new(quiz, learner, kind, question_ids, embedded_in)


def _open_or_new_query(**learner: Placeholder) -> CompiledQuery:
    """The learner's open self-study attempt of a kind at a quiz, and their count of quiz
    attempts there (an assignment's too): no row when they have no attempt at it."""
    attempts = Attempt.objects.filter(quiz=Placeholder("quiz"), **learner).order_by()
    open_now = Q(kind=Placeholder("kind"), completed_at=None, abandoned_at=None, assignment=None)
    return CompiledQuery(
        attempts.values("quiz")
        .annotate(
            open_id=Max("pk", filter=open_now),
            quiz_attempts=Count("pk", filter=Q(kind=AttemptKind.QUIZ)),
        )
        .values_list("open_id", "quiz_attempts")
    )


# Compiled once per connection, as every learner's Start runs it: a query that tells both
# whether to resume and whether a new attempt is the learner's first. (The new attempt's
# INSERT is the ORM's: compiled, it saved 0.1 ms of a 5 ms Start; bench/compiled.py.)
_OPEN_OR_COUNT = {
    "user": _open_or_new_query(user=Placeholder("user")),
    "key": _open_or_new_query(user=None, learner_key=Placeholder("learner_key")),
}


def _open_or_new(
    quiz, learner: dict, kind: str, question_ids: list[int] | None, embedded_in: int | None
) -> Attempt:
    if "learner_key" in learner:
        rows = _OPEN_OR_COUNT["key"](quiz=quiz.pk, kind=kind, learner_key=learner["learner_key"])
    else:
        rows = _OPEN_OR_COUNT["user"](quiz=quiz.pk, kind=kind, user=learner["user"].pk)
    open_id, quiz_attempts = rows[0] if rows else (None, 0)
    if open_id is not None:
        return Attempt.objects.get(pk=open_id)
    return Attempt.objects.create(
        public_id=uuid.uuid4(),
        quiz_id=quiz.pk,
        user=learner["user"],
        learner_key=learner.get("learner_key", ""),
        language=get_language(),
        is_first=kind == AttemptKind.QUIZ and not quiz_attempts,
        kind=kind,
        question_ids=question_ids,
        embedded_in_id=embedded_in,
    )


def question_attempt_start(
    *,
    quiz: QuizContent,
    question: QuestionContent,
    user: AbstractBaseUser | None,
    learner_key: str = "",
    embedded_in: int | None = None,
) -> Attempt:
    """An attempt at one question of the quiz (a question embedded on its own in a guide's
    page): the learner's one in progress at that question, or a new one, which replaces
    their one-question attempt in progress at another question of the quiz (a learner has
    one attempt of each kind in progress at a quiz)."""
    fields = {"quiz": quiz, "user": user, "learner_key": learner_key, "embedded_in": embedded_in}
    fields |= {"kind": AttemptKind.QUESTION, "question_ids": [question.pk]}
    attempt = attempt_start(**fields)
    if attempt.question_ids != [question.pk]:
        attempt = attempt_start(**fields, start_over=True)
    return attempt


class NotFinished(Exception):
    """The attempt is still in progress: its mistakes are not known yet."""


class NothingMissed(Exception):
    """Every question of the attempt was answered right: there is nothing to practise."""


class NotPublished(Exception):
    """The quiz is not published (any more): no practice starts on it."""


def practice_start(
    *,
    attempt: Attempt,
    quiz: QuizContent,
    user: AbstractBaseUser | None,
    learner_key: str = "",
) -> Attempt:
    """A practice attempt at the questions the learner missed in `attempt` (theirs, finished),
    in the quiz's order; it replaces their practice attempt in progress at the quiz, if any
    (one transaction: attempt_start's). Raises NotPublished, NotFinished or NothingMissed,
    and then creates nothing."""
    if not quiz.is_published:
        raise NotPublished
    if not attempt.is_finished:
        raise NotFinished
    missed = set(
        Answer.objects.filter(attempt=attempt, is_correct=False).values_list(
            "question_id", flat=True
        )
    )
    question_ids = [q.pk for q in quiz.questions_among(attempt.question_ids) if q.pk in missed]
    if not question_ids:
        raise NothingMissed
    return attempt_start(
        quiz=quiz,
        user=user,
        learner_key=learner_key,
        kind=AttemptKind.PRACTICE,
        question_ids=question_ids,
        start_over=True,
        embedded_in=attempt.embedded_in_id,  # Practised where it was taken.
    )


class AssignmentRefused(Exception):
    """The learner may not start an attempt at the assignment now; `reason` says why."""

    NOT_MEMBER = "not_member"
    NOT_OPEN_YET = "not_open_yet"
    CLOSED = "closed"
    NO_ATTEMPTS_LEFT = "no_attempts_left"
    UNPUBLISHED = "unpublished"

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def assignment_attempt_start(*, assignment: Assignment, user: AbstractBaseUser) -> Attempt:
    """The learner's attempt in progress at the assignment, or a new one under its rules.

    A new attempt takes the next `number` and its `deadline`: its start plus the time limit
    and the learner's extra time (Override), or the close if that comes first. Raises
    AssignmentRefused, creating nothing, for a learner not in the class, before the opening,
    after the close, once the attempts allowed (and the extra ones) are used, or when the
    quiz is no longer published. Of parallel Starts at the last attempt allowed one takes its
    number (a unique constraint); the others find its attempt, or the refusal.
    """
    try:
        with transaction.atomic():
            return _assignment_open_or_new(assignment, user)
    except IntegrityError:  # Another Start took the number: take what it made, or refuse.
        return _assignment_open_or_new(assignment, user)


def _assignment_open_or_new(assignment: Assignment, user: AbstractBaseUser) -> Attempt:
    now = timezone.now()
    if not Membership.objects.filter(klass=assignment.klass_id, learner=user).exists():
        raise AssignmentRefused(AssignmentRefused.NOT_MEMBER)
    mine = Attempt.objects.filter(assignment=assignment, user=user)
    mine.submit_overdue(now)
    # One statement, so that the attempt in progress and the attempts used are seen at once
    # (a parallel Start's attempt in both or in neither).
    seen = mine.aggregate(
        last=Max("number"), open_id=Max("pk", filter=Q(completed_at=None, abandoned_at=None))
    )
    if seen["open_id"] is not None:
        return Attempt.objects.get(pk=seen["open_id"])
    if not Quiz.objects.filter(pk=assignment.quiz_id, is_published=True).exists():
        raise AssignmentRefused(AssignmentRefused.UNPUBLISHED)
    if assignment.opens_at is not None and now < assignment.opens_at:
        raise AssignmentRefused(AssignmentRefused.NOT_OPEN_YET)
    if assignment.closes_at is not None and now >= assignment.closes_at:
        raise AssignmentRefused(AssignmentRefused.CLOSED)
    override = Override.objects.filter(assignment=assignment, learner=user).first()
    used = seen["last"] or 0
    if assignment.attempt_limit is not None:
        allowed = assignment.attempt_limit + (override.extra_attempts if override else 0)
        if used >= allowed:
            raise AssignmentRefused(AssignmentRefused.NO_ATTEMPTS_LEFT)
    attempt = Attempt.objects.create(
        public_id=uuid.uuid4(),
        quiz_id=assignment.quiz_id,
        user=user,
        language=get_language(),
        is_first=not Attempt.objects.filter(
            quiz=assignment.quiz_id, user=user, kind=AttemptKind.QUIZ
        ).exists(),
        assignment=assignment,
        number=used + 1,
    )
    # From its start as recorded (auto_now_add sets it as the row is written).
    attempt.deadline = assignment.deadline_for(
        started_at=attempt.started_at,
        extra_time=override.extra_time if override else timedelta(0),
    )
    if attempt.deadline is not None:
        attempt.save(update_fields=["deadline"])
    return attempt


def attempt_submit_overdue(*, attempt: Attempt) -> bool:
    """Submit the attempt as it stood at its deadline if that has passed and it is still open
    (its learner never came back): whether it did."""
    return bool(Attempt.objects.filter(pk=attempt.pk).submit_overdue(timezone.now()))


# Run by every answer, compiled once (quizsite/queries.py): together they save about 1 ms,
# 14 % of an answer's request, on SQLite and PostgreSQL alike (bench/compiled.py).
_LOCK_ATTEMPT = CompiledQuery(
    Attempt.objects.select_for_update()
    .filter(pk=Placeholder("id"))
    .values_list("abandoned_at", "deadline", "completed_at")
)
_GRADED = CompiledQuery(
    Answer.objects.filter(attempt=Placeholder("attempt"))
    .order_by()
    .values_list("question_id", "credit")
)
_ANSWER_FKS = ("attempt", "question", "choice")
_INSERT_ANSWER = CompiledInsert(
    Answer,
    *_ANSWER_FKS,
    "response",
    "variant",
    "credit",
    "is_correct",
    "answered_at",
    returning_pk=True,
)
_INSERT_PICKS = CompiledInsert(AnswerChoice, "answer", "choice")


def answer_record(
    *,
    attempt: Attempt,
    quiz: QuizContent,
    question: QuestionContent,
    choices: tuple[ChoiceContent, ...],
    response: str | None = None,
) -> Answer:
    """Record the learner's picks; completes and scores the attempt on its last answer.

    `quiz` is the attempt's quiz, as the caller read it with the attempt; `choices` are the
    picked choices of `question`, as many as its kind takes, and `response` what else the
    answer holds (a numerical answer's number, `Kind.response`), which its kind grades: the
    answer's credit is its score, and the answer is right when that is full; the attempt's
    score is the sum of its answers' credits.
    Raises AlreadyAnswered when the question has an answer already (a second tab, a
    replayed POST): the first answer stands; NotOpenYet when an earlier question has none;
    AttemptClosed when the attempt was abandoned, or its quiz unpublished (an editor's
    preview goes on); TimeUp when the server's clock is past the attempt's deadline: the
    answer is not recorded, and the attempt is submitted (committed) as it stood then.
    """
    with transaction.atomic():
        answer = _answer_record(
            attempt=attempt, quiz=quiz, question=question, choices=choices, response=response
        )
    if answer is None:
        raise TimeUp
    return answer


def _answer_record(
    *,
    attempt: Attempt,
    quiz: QuizContent,
    question: QuestionContent,
    choices: tuple[ChoiceContent, ...],
    response: str | None,
) -> Answer | None:
    """answer_record's work, in its transaction; None when the time ran out."""
    picked = frozenset(choice.pk for choice in choices)
    if (
        not question.type.accepts(question, picked, response)
        or len(picked) != len(choices)
        or any(choice.question_id != question.pk for choice in choices)
        or question.quiz_id != attempt.quiz_id
        or quiz.pk != attempt.quiz_id
    ):
        raise ValueError("The picks are not choices of a question of this attempt's quiz.")
    # Lock the attempt: its answers are recorded one at a time, so the answers read next are
    # all it has, a second answer to the question is refused, and of two answers racing to be
    # the last one, one completes the attempt. (The unique constraint stays as a backstop.)
    # Not one statement: a query that waited for the lock sees the rows of other tables as
    # they were when it started, so it would miss the answer that held the lock.
    # The deadline is read under the lock too: an override's extra time may have moved it.
    ((abandoned_at, deadline, completed_at),) = _LOCK_ATTEMPT(id=attempt.pk)
    if abandoned_at is not None:
        raise AttemptClosed(AttemptClosed.ABANDONED)
    if not quiz.is_published and attempt.kind != AttemptKind.PREVIEW:
        raise AttemptClosed(AttemptClosed.UNPUBLISHED)
    graded = dict(_GRADED(attempt=attempt.pk))
    questions = quiz.questions_among(attempt.question_ids)
    # The server's clock is the only one that counts: an answer read after the deadline is
    # refused, whatever the browser showed, and the attempt is submitted as it stood.
    if deadline is not None and timezone.now() >= deadline:
        if completed_at is None:
            attempt.completed_at = deadline
            attempt.score = sum(graded.values(), Decimal(0))
            attempt.max_score = len(questions)
            attempt.save(update_fields=["completed_at", "score", "max_score"])
        return None
    if question.pk in graded:
        raise AlreadyAnswered
    first_open = next(n for n, q in enumerate(questions, 1) if q.pk not in graded)
    if questions[first_open - 1].pk != question.pk:
        raise NotOpenYet(first_open)
    credit = credit_of(question.type.grade(question, picked, response))
    values = {
        "attempt": attempt.pk,
        "question": question.pk,
        "choice": choices[0].pk if len(choices) == 1 else None,  # See Answer.choice.
        "response": response or "",
        "variant": (
            calculated.variant_key(question.variables, attempt.public_id, question.pk)
            if question.type.has_variables
            else ""
        ),
        "credit": credit,
        "is_correct": credit == 1,
        "answered_at": timezone.now(),
    }
    answer_id = _INSERT_ANSWER(values)
    if picked:
        _INSERT_PICKS(*({"answer": answer_id, "choice": pk} for pk in sorted(picked)))
    answer = Answer(
        id=answer_id, **{f"{name}_id": values.pop(name) for name in _ANSWER_FKS}, **values
    )
    graded[question.pk] = credit
    total = len(questions)
    if len(graded) >= total:
        attempt.completed_at = timezone.now()
        attempt.score = sum(graded.values(), Decimal(0))
        attempt.max_score = total
        attempt.save(update_fields=["completed_at", "score", "max_score"])
        transaction.on_commit(lambda: attempt_finished.send(Attempt, attempt=attempt))
    return answer


@transaction.atomic
def attempts_claim(*, learner_key: str | None, user: AbstractBaseUser) -> int:
    """Give a learner who just signed in the attempts they made anonymously.

    Where both the account and the key have an attempt of a kind in progress at a quiz, the
    key's goes on (the one the learner was just taking) and the account's is abandoned. The
    account's first attempt at each quiz is then its earliest.
    """
    if not learner_key:
        return 0
    keys = Attempt.objects.filter(user=None, learner_key=learner_key)
    open_for_key = keys.filter(
        quiz=OuterRef("quiz"), kind=OuterRef("kind"), completed_at=None, abandoned_at=None
    )
    Attempt.objects.filter(user=user, completed_at=None, abandoned_at=None, assignment=None).filter(
        Exists(open_for_key)
    ).update(abandoned_at=timezone.now())
    claimed = keys.update(user=user, learner_key="", is_first=False)
    if claimed:
        quiz_attempts = Attempt.objects.filter(user=user, kind=AttemptKind.QUIZ)
        earlier = quiz_attempts.filter(quiz=OuterRef("quiz")).filter(
            Q(started_at__lt=OuterRef("started_at"))
            | Q(started_at=OuterRef("started_at"), pk__lt=OuterRef("pk"))
        )
        # Two UPDATEs, so that no row turns first while another is still first.
        quiz_attempts.filter(is_first=True).filter(Exists(earlier)).update(is_first=False)
        quiz_attempts.filter(is_first=False).exclude(Exists(earlier)).update(is_first=True)
    return claimed


@transaction.atomic
def account_delete(*, user: AbstractBaseUser, keep_attempts: bool) -> int:
    """Delete the learner's account and say what became of its attempts (how many).

    Kept, they stay in the reports as one anonymous learner's, under a key that nobody
    holds: no page shows them as anyone's again, and the first attempts stay first. Deleted,
    they go with their answers.
    """
    attempts = Attempt.objects.filter(user=user)
    if keep_attempts:
        count = attempts.update(learner_key=f"deleted-{secrets.token_hex(16)}")
    else:
        count = attempts.count()
        attempts.delete()
    user.delete()  # Attempt.user is SET_NULL: what was kept turns anonymous.
    return count


@dataclass(frozen=True)
class Regraded:
    answers: int
    attempts: int


@transaction.atomic
def answers_regrade(
    *, quiz: Quiz | None = None, questions: models.QuerySet[Question] | None = None
) -> Regraded:
    """Grade the recorded answers again against the choices marked correct now.

    An answer by picks gets its credit again in one statement (`_picks_credit`); an answer
    of another kind (a number) is matched again against the choices as they are now
    (`_responses_regrade`). The scores (sums of credits) of the finished attempts these
    answers belong to follow. Returns how many answers and attempts changed.
    """
    if (quiz is None) == (questions is None):
        raise ValueError("Give either a quiz or questions.")
    if quiz is not None:
        questions = Question.objects.filter(quiz=quiz)
    by_picks = [name for name, kind in kinds.KINDS.items() if kind.by_picks]
    answers = Answer.objects.filter(question__in=questions.filter(kind__in=by_picks).values("pk"))
    credit = _picks_credit()
    changed = answers.exclude(credit=credit).update(credit=credit)
    answers.filter(credit=1, is_correct=False).update(is_correct=True)
    answers.exclude(credit=1).filter(is_correct=True).update(is_correct=False)
    changed += _responses_regrade(questions.exclude(kind__in=by_picks))

    score = Coalesce(
        Subquery(
            Answer.objects.filter(attempt=OuterRef("pk"))
            .order_by()
            .values("attempt")
            .annotate(total=Sum("credit"))
            .values("total"),
            output_field=Attempt._meta.get_field("score"),
        ),
        Value(Decimal(0)),
    )
    attempts = Attempt.objects.filter(
        completed_at__isnull=False, quiz__in=questions.values("quiz")
    ).exclude(score=score)
    return Regraded(answers=changed, attempts=attempts.update(score=score))


def _count(rows: models.QuerySet, group: str) -> Coalesce:
    """How many of these rows (each a subquery of an answer's) there are, 0 for none."""
    counted = rows.order_by().values(group).annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


def _picks_credit() -> Case:
    """An answer by picks' credit, in SQL, as its kind's `grade` gives it: 1 when it picked
    every correct choice and no other, else the credit of its one pick for a kind of one
    pick (a near miss's share, 0 by default), else 0; and for a question that several picks answer
    with partial credit (multiple choice), the share of the correct choices it picked less
    the share of the wrong ones, never below 0 (`quizzes/kinds/choices.py: partial_grade`),
    rounded as Answer.credit keeps it."""
    picks = AnswerChoice.objects.filter(answer=OuterRef("pk"))
    choices = Choice.objects.filter(question=OuterRef("question"))
    shares = [
        Cast(_count(picks.filter(choice__is_correct=right), "answer"), FloatField())
        / NullIf(_count(choices.filter(is_correct=right), "question"), 0)
        for right in (True, False)
    ]
    partial = Greatest(shares[0] - Coalesce(shares[1], 0.0), 0.0)
    credit_field = Answer._meta.get_field("credit")
    several = [name for name, kind in kinds.KINDS.items() if kind.by_picks and kind.several]
    partial_credit = Exists(
        Question.objects.filter(pk=OuterRef("question"), partial_credit=True, kind__in=several)
    )
    picked_wrong = Exists(picks.filter(choice__is_correct=False))
    missed_correct = Exists(
        choices.filter(is_correct=True).exclude(
            Exists(
                AnswerChoice.objects.filter(answer=OuterRef(OuterRef("pk")), choice=OuterRef("pk"))
            )
        )
    )
    one_pick = [name for name, kind in kinds.KINDS.items() if kind.by_picks and not kind.several]
    near_miss = Choice.objects.filter(pk=OuterRef("choice"), question__kind__in=one_pick)
    return Case(
        When(partial_credit, then=Round(Cast(partial, credit_field), CREDIT_PLACES)),
        When(
            Q(picked_wrong) | Q(missed_correct),
            then=Coalesce(Subquery(near_miss.values("credit")), Value(Decimal(0))),
        ),
        default=Value(Decimal(1)),
        output_field=credit_field,
    )


_REGRADE_BATCH = 1000


def _responses_regrade(questions: models.QuerySet[Question]) -> int:
    """Match the answers to these questions (of kinds not answered by picks) again, by
    their kind's `picked`, against their choices as they are now: the match is the
    answer's pick and `choice`, and grades it. Returns how many answers changed grade or
    match. In batches: the answers are read and written a thousand at a time."""
    changed = 0
    for question in questions.prefetch_related("choices"):
        choices = [_regraded_choice(choice) for choice in question.choices.all()]
        content = GradedQuestion.of(question, choices)
        kind = question.type
        answers = (
            question.answers.exclude(response="")
            .annotate(language=F("attempt__language"))
            .order_by("pk")
        )
        if kind.has_variables:  # Each answer against its attempt's variant.
            answers = answers.select_related("attempt")
        for start in range(0, answers.count(), _REGRADE_BATCH):
            batch = list(answers[start : start + _REGRADE_BATCH].prefetch_related("picks"))
            moved = []
            for answer in batch:
                variant = answer.variant  # As the attempt draws it now, with the variables.
                if kind.has_variables:
                    drawn = _drawn_choices(question, choices, answer.attempt)
                    variant = calculated.variant_key(
                        question.variables, answer.attempt.public_id, question.pk
                    )
                    picked = frozenset(kind.rematch(answer.response, drawn, answer.language))
                else:
                    picked = frozenset(kind.rematch(answer.response, choices, answer.language))
                credit = credit_of(kind.grade(content, picked, answer.response))
                if (
                    picked != {pick.choice_id for pick in answer.picks.all()}
                    or credit != answer.credit
                    or variant != answer.variant
                ):
                    answer.variant = variant
                    answer.credit = credit
                    answer.is_correct = credit == 1
                    # As answer_record keeps it: the one pick of an answer of one.
                    answer.choice_id = next(iter(picked)) if len(picked) == 1 else None
                    moved.append((answer, picked))
            Answer.objects.bulk_update(
                [answer for answer, _picked in moved],
                ["credit", "is_correct", "choice", *(["variant"] if kind.has_variables else [])],
            )
            AnswerChoice.objects.filter(answer__in=[answer for answer, _picked in moved]).delete()
            AnswerChoice.objects.bulk_create(
                AnswerChoice(answer=answer, choice_id=pk)
                for answer, picked in moved
                for pk in picked
            )
            changed += len(moved)
    return changed


def _drawn_choices(question: Question, choices: list, attempt: Attempt) -> list:
    """A calculated question's choices (as `_regraded_choice` makes them) as `attempt`
    drew them: each text its formula's value (`snapshots.drawn`)."""
    seed = calculated.seed_of(attempt.public_id, question.pk)
    _values, results = calculated.drawn_values(question.variables, choices, seed)
    shown = {pk: "" if value is None else plain(value) for pk, value in results.items()}
    return [
        SimpleNamespace(
            **{**vars(choice), "text": Text(((settings.LANGUAGE_CODE, shown[choice.pk]),))}
        )
        for choice in choices
    ]


def _regraded_choice(choice: Choice) -> SimpleNamespace:
    """A choice as its kind grades it (what a ChoiceContent has of it)."""
    return SimpleNamespace(
        pk=choice.pk,
        is_correct=choice.is_correct,
        tolerance=choice.tolerance,
        relative_tolerance=choice.relative_tolerance,
        credit=choice.credit,
        text=Text.of(choice, "text"),
        match=Text.of(choice, "match"),
        gap=choice.gap,
    )
