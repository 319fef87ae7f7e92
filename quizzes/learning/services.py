"""Writes that span models: attempts, answers and regrading."""

import secrets
import uuid
from dataclasses import dataclass
from types import SimpleNamespace

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, models, transaction
from django.db.models import Count, Exists, IntegerField, Max, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import get_language

from quizsite.queries import CompiledInsert, CompiledQuery, Placeholder
from quizzes import kinds
from quizzes.models import (
    Answer,
    AnswerChoice,
    Attempt,
    AttemptKind,
    Choice,
    Question,
    Quiz,
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
) -> Attempt:
    """The learner's attempt of this kind in progress at the quiz, or a new one.

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
                    quiz=quiz.pk, kind=kind, completed_at=None, abandoned_at=None, **learner
                ).update(abandoned_at=timezone.now())
            return _open_or_new(quiz, learner, kind, question_ids)
    except IntegrityError:  # Another start won the race: take what it made.
        return _open_or_new(quiz, learner, kind, question_ids)


def _open_or_new_query(**learner: Placeholder) -> CompiledQuery:
    """The learner's open attempt of a kind at a quiz, and their count of quiz attempts there:
    no row when they have no attempt at it."""
    attempts = Attempt.objects.filter(quiz=Placeholder("quiz"), **learner).order_by()
    open_now = Q(kind=Placeholder("kind"), completed_at=None, abandoned_at=None)
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


def _open_or_new(quiz, learner: dict, kind: str, question_ids: list[int] | None) -> Attempt:
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
    )


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
    )


# Run by every answer, compiled once (quizsite/queries.py): together they save about 1 ms,
# 14 % of an answer's request, on SQLite and PostgreSQL alike (bench/compiled.py).
_LOCK_ATTEMPT = CompiledQuery(
    Attempt.objects.select_for_update().filter(pk=Placeholder("id")).values_list("abandoned_at")
)
_GRADED = CompiledQuery(
    Answer.objects.filter(attempt=Placeholder("attempt"))
    .order_by()
    .values_list("question_id", "is_correct")
)
_ANSWER_FKS = ("attempt", "question", "choice")
_INSERT_ANSWER = CompiledInsert(
    Answer, *_ANSWER_FKS, "response", "is_correct", "answered_at", returning_pk=True
)
_INSERT_PICKS = CompiledInsert(AnswerChoice, "answer", "choice")


@transaction.atomic
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
    answer is right when its score is full.
    Raises AlreadyAnswered when the question has an answer already (a second tab, a
    replayed POST): the first answer stands; NotOpenYet when an earlier question has none;
    AttemptClosed when the attempt was abandoned, or its quiz unpublished (an editor's
    preview goes on).
    """
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
    lock = Attempt.objects.select_for_update().filter(pk=attempt.pk)
    (abandoned_at,) = lock.values_list("abandoned_at").get()
    if abandoned_at is not None:
        raise AttemptClosed(AttemptClosed.ABANDONED)
    if not quiz.is_published and attempt.kind != AttemptKind.PREVIEW:
        raise AttemptClosed(AttemptClosed.UNPUBLISHED)
    answers = Answer.objects.filter(attempt=attempt.pk).order_by()
    graded = dict(answers.values_list("question_id", "is_correct"))
    if question.pk in graded:
        raise AlreadyAnswered
    questions = quiz.questions_among(attempt.question_ids)
    first_open = next(n for n, q in enumerate(questions, 1) if q.pk not in graded)
    if questions[first_open - 1].pk != question.pk:
        raise NotOpenYet(first_open)
    values = {
        "attempt": attempt.pk,
        "question": question.pk,
        "choice": choices[0].pk if len(choices) == 1 else None,  # See Answer.choice.
        "response": response or "",
        "is_correct": question.type.grade(question, picked, response) == 1,
        "answered_at": timezone.now(),
    }
    answer_id = _INSERT_ANSWER(values)
    if picked:
        _INSERT_PICKS(*({"answer": answer_id, "choice": pk} for pk in sorted(picked)))
    answer = Answer(
        id=answer_id, **{f"{name}_id": values.pop(name) for name in _ANSWER_FKS}, **values
    )
    graded[question.pk] = answer.is_correct
    total = len(questions)
    if len(graded) >= total:
        attempt.completed_at = timezone.now()
        attempt.score = sum(graded.values())
        attempt.max_score = total
        attempt.save(update_fields=["completed_at", "score", "max_score"])
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
    Attempt.objects.filter(user=user, completed_at=None, abandoned_at=None).filter(
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

    An answer by picks is correct when it picked every correct choice and no other, in
    one statement; an answer of another kind (a number) is matched again against the
    choices as they are now (`_responses_regrade`). The scores of the finished attempts
    these answers belong to follow. Returns how many answers and attempts changed.
    """
    if (quiz is None) == (questions is None):
        raise ValueError("Give either a quiz or questions.")
    if quiz is not None:
        questions = Question.objects.filter(quiz=quiz)
    by_picks = [name for name, kind in kinds.KINDS.items() if kind.by_picks]
    answers = Answer.objects.filter(question__in=questions.filter(kind__in=by_picks).values("pk"))
    picked_wrong = Exists(
        AnswerChoice.objects.filter(answer=OuterRef("pk"), choice__is_correct=False)
    )
    missed_correct = Exists(
        Choice.objects.filter(question=OuterRef("question"), is_correct=True).exclude(
            Exists(
                AnswerChoice.objects.filter(answer=OuterRef(OuterRef("pk")), choice=OuterRef("pk"))
            )
        )
    )
    wrong = Q(picked_wrong) | Q(missed_correct)
    changed = answers.filter(Q(is_correct=True) & wrong).update(is_correct=False)
    changed += answers.filter(Q(is_correct=False) & ~wrong).update(is_correct=True)
    changed += _responses_regrade(questions.exclude(kind__in=by_picks))

    correct_count = Coalesce(
        Subquery(
            Answer.objects.filter(attempt=OuterRef("pk"), is_correct=True)
            .order_by()
            .values("attempt")
            .annotate(n=Count("pk"))
            .values("n"),
            output_field=IntegerField(),
        ),
        0,
    )
    attempts = Attempt.objects.filter(
        completed_at__isnull=False, quiz__in=questions.values("quiz")
    ).exclude(score=correct_count)
    return Regraded(answers=changed, attempts=attempts.update(score=correct_count))


_REGRADE_BATCH = 1000


def _responses_regrade(questions: models.QuerySet[Question]) -> int:
    """Match the answers to these questions (of kinds not answered by picks) again, by
    their kind's `picked`, against their choices as they are now: the match is the
    answer's pick and `choice`, and grades it. Returns how many answers changed grade or
    match. In batches: the answers are read and written a thousand at a time."""
    changed = 0
    for question in questions.prefetch_related("choices"):
        choices = [_regraded_choice(choice) for choice in question.choices.all()]
        content = SimpleNamespace(choices=choices)
        kind = question.type
        answers = question.answers.exclude(response="").order_by("pk")
        for start in range(0, answers.count(), _REGRADE_BATCH):
            batch = list(answers[start : start + _REGRADE_BATCH].prefetch_related("picks"))
            moved = []
            for answer in batch:
                picked = frozenset(kind.rematch(answer.response, choices))
                is_correct = kind.grade(content, picked, answer.response) == 1
                if picked != {pick.choice_id for pick in answer.picks.all()} or (
                    is_correct != answer.is_correct
                ):
                    answer.is_correct = is_correct
                    answer.choice_id = next(iter(picked), None)
                    moved.append((answer, picked))
            Answer.objects.bulk_update(
                [answer for answer, _picked in moved], ["is_correct", "choice"]
            )
            AnswerChoice.objects.filter(answer__in=[answer for answer, _picked in moved]).delete()
            AnswerChoice.objects.bulk_create(
                AnswerChoice(answer=answer, choice_id=pk)
                for answer, picked in moved
                for pk in picked
            )
            changed += len(moved)
    return changed


def _regraded_choice(choice: Choice) -> SimpleNamespace:
    """A choice as its kind grades it (what a ChoiceContent has of it)."""
    return SimpleNamespace(
        pk=choice.pk,
        is_correct=choice.is_correct,
        tolerance=choice.tolerance,
        relative_tolerance=choice.relative_tolerance,
        credit=choice.credit,
        text=Text.of(choice, "text"),
    )
