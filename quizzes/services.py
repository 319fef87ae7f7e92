"""Writes that span models: attempts, answers and regrading."""

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import models, transaction
from django.db.models import Count, Exists, IntegerField, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import get_language

from quizsite.queries import CompiledQuery, Placeholder

from .content import ChoiceContent, QuestionContent, QuizContent
from .models import Answer, AnswerChoice, Attempt, Choice, Question, Quiz


class AlreadyAnswered(Exception):
    """The question already has an answer in this attempt; nothing was recorded."""


class NotOpenYet(Exception):
    """An earlier question of the attempt is unanswered: questions are answered in order."""

    def __init__(self, first_open: int):
        super().__init__(first_open)
        self.first_open = first_open  # The number of the question to answer first.


def attempt_start(
    *, quiz: Quiz | QuizContent, user: AbstractBaseUser | None, learner_key: str = ""
) -> Attempt:
    """Start an attempt, marked as the learner's first at this quiz when it is (reports).

    A signed-in learner's attempt is their account's; an anonymous one's is their key's.
    """
    if user is not None and user.is_authenticated:
        learner = {"user": user}
    elif learner_key:
        learner = {"user": None, "learner_key": learner_key}
    else:
        raise ValueError("An anonymous learner's attempt needs their key.")
    earlier = Attempt.objects.filter(quiz=quiz.pk, **learner).exists()
    return Attempt.objects.create(
        quiz_id=quiz.pk, language=get_language(), is_first=not earlier, **learner
    )


# Run by every answer, compiled once (quizsite/queries.py).
_LOCK_ATTEMPT = CompiledQuery(
    Attempt.objects.select_for_update().filter(pk=Placeholder("id")).values_list("pk")
)
_GRADED = CompiledQuery(
    Answer.objects.filter(attempt=Placeholder("attempt"))
    .order_by()
    .values_list("question_id", "is_correct")
)


@transaction.atomic
def answer_record(
    *, attempt: Attempt, quiz: QuizContent, question: QuestionContent, choice: ChoiceContent
) -> Answer:
    """Record the learner's choice; completes and scores the attempt on its last answer.

    `quiz` is the attempt's quiz, as the caller read it with the attempt. Raises
    AlreadyAnswered when the question has an answer already (a second tab, a replayed
    POST): the first answer stands; NotOpenYet when an earlier question has none.
    """
    if (
        choice.question_id != question.pk
        or question.quiz_id != attempt.quiz_id
        or quiz.pk != attempt.quiz_id
    ):
        raise ValueError("The choice does not belong to a question of this attempt's quiz.")
    # Lock the attempt: its answers are recorded one at a time, so the answers read next are
    # all it has, a second answer to the question is refused, and of two answers racing to be
    # the last one, one completes the attempt. (The unique constraint stays as a backstop.)
    _LOCK_ATTEMPT(id=attempt.pk)
    graded = {row.question_id: row.is_correct for row in _GRADED(attempt=attempt.pk)}
    if question.pk in graded:
        raise AlreadyAnswered
    first_open = next(n for n, q in enumerate(quiz.questions, 1) if q.pk not in graded)
    if quiz.questions[first_open - 1].pk != question.pk:
        raise NotOpenYet(first_open)
    answer = Answer.objects.create(
        attempt=attempt, question_id=question.pk, choice_id=choice.pk, is_correct=choice.is_correct
    )
    AnswerChoice.objects.create(answer=answer, choice_id=choice.pk)
    graded[question.pk] = answer.is_correct
    total = len(quiz.questions)
    if len(graded) >= total:
        attempt.completed_at = timezone.now()
        attempt.score = sum(graded.values())
        attempt.max_score = total
        attempt.save(update_fields=["completed_at", "score", "max_score"])
    return answer


@transaction.atomic
def attempts_claim(*, learner_key: str | None, user: AbstractBaseUser) -> int:
    """Give a learner who just signed in the attempts they made anonymously.

    Their first attempt at each quiz is then the account's earliest (one more UPDATE).
    """
    if not learner_key:
        return 0
    claimed = Attempt.objects.filter(user=None, learner_key=learner_key).update(
        user=user, learner_key=""
    )
    if claimed:
        earlier = Attempt.objects.filter(
            quiz=OuterRef("quiz"), user=user, started_at__lt=OuterRef("started_at")
        )
        Attempt.objects.filter(user=user).update(is_first=~Exists(earlier))
    return claimed


@dataclass(frozen=True)
class Regraded:
    answers: int
    attempts: int


@transaction.atomic
def answers_regrade(
    *, quiz: Quiz | None = None, questions: models.QuerySet[Question] | None = None
) -> Regraded:
    """Grade the recorded answers again against the choices marked correct now.

    An answer is correct when it picked every correct choice and no other. The
    scores of the finished attempts these answers belong to follow. Returns how
    many answers and attempts changed.
    """
    if (quiz is None) == (questions is None):
        raise ValueError("Give either a quiz or questions.")
    if quiz is not None:
        questions = Question.objects.filter(quiz=quiz)
    answers = Answer.objects.filter(question__in=questions.values("pk"))
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
