"""Writes that span models: attempts, answers, and importing content."""

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.sessions.backends.base import SessionBase
from django.db import IntegrityError, transaction
from django.db.models import Count, ProtectedError, Q
from django.utils import timezone
from django.utils.translation import get_language
from modeltranslation.utils import build_localized_fieldname

from guides.models import GuidePath

from .models import Answer, AnswerChoice, Attempt, Choice, Level, Question, QuestionKind, Quiz


class AlreadyAnswered(Exception):
    """The question already has an answer in this attempt; nothing was recorded."""

    def __init__(self, answer: Answer):
        super().__init__(answer)
        self.answer = answer


def attempt_start(*, quiz: Quiz, user: AbstractBaseUser | None, session: SessionBase) -> Attempt:
    if user is not None and user.is_authenticated:
        return Attempt.objects.create(quiz=quiz, user=user, language=get_language())
    if session.session_key is None:
        session.save()
    return Attempt.objects.create(
        quiz=quiz, session_key=session.session_key, language=get_language()
    )


@transaction.atomic
def answer_record(*, attempt: Attempt, question: Question, choice: Choice) -> Answer:
    """Record the learner's choice; completes and scores the attempt on its last answer.

    Raises AlreadyAnswered when the question has an answer already (a second tab,
    a replayed POST): the first answer stands.
    """
    if choice.question_id != question.pk or question.quiz_id != attempt.quiz_id:
        raise ValueError("The choice does not belong to a question of this attempt's quiz.")
    # Lock the attempt so that two answers racing to be the last one complete it once.
    Attempt.objects.select_for_update().filter(pk=attempt.pk).values_list("pk").get()
    try:
        with transaction.atomic():
            answer = Answer.objects.create(
                attempt=attempt, question=question, is_correct=choice.is_correct
            )
    except IntegrityError:
        raise AlreadyAnswered(Answer.objects.get(attempt=attempt, question=question)) from None
    AnswerChoice.objects.create(answer=answer, choice=choice)
    _complete_if_done(attempt)
    return answer


def _complete_if_done(attempt: Attempt) -> None:
    total = Question.objects.filter(quiz_id=attempt.quiz_id).count()
    counts = Answer.objects.filter(attempt=attempt).aggregate(
        answered=Count("pk"), correct=Count("pk", filter=Q(is_correct=True))
    )
    if counts["answered"] < total:
        return
    attempt.completed_at = timezone.now()
    attempt.score = counts["correct"]
    attempt.max_score = total
    attempt.save(update_fields=["completed_at", "score", "max_score"])


def attempts_claim(*, session_key: str | None, user: AbstractBaseUser) -> int:
    """Give a learner who just signed in the attempts they made anonymously."""
    if not session_key:
        return 0
    return Attempt.objects.filter(user=None, session_key=session_key).update(
        user=user, session_key=""
    )


class QuizFileError(ValueError):
    """A quiz file that can't be imported; `place` says where (question 3, choice 2)."""

    def __init__(self, place: str, message: str):
        super().__init__(f"{place}: {message}" if place else message)
        self.place = place
        self.message = message


def _translations(data: dict, field: str, place: str, *, required: bool) -> dict[str, str]:
    value = data.get(field, {})
    if isinstance(value, str):
        value = {settings.LANGUAGE_CODE: value}
    if not isinstance(value, dict):
        raise QuizFileError(place, f"{field} must map language codes to text.")
    unknown = set(value) - {code for code, _name in settings.LANGUAGES}
    if unknown:
        raise QuizFileError(place, f"{field} has unknown languages: {', '.join(sorted(unknown))}.")
    if required and not value.get(settings.LANGUAGE_CODE):
        raise QuizFileError(place, f"{field} needs a text in {settings.LANGUAGE_CODE}.")
    return {
        build_localized_fieldname(field, code): value.get(code) or ""
        for code, _name in settings.LANGUAGES
    }


@transaction.atomic
def guide_paths_import(*, data: dict) -> list[GuidePath]:
    """Create or update guide paths by slug from a guides file."""
    guides = []
    for number, item in enumerate(data.get("guide_paths", []), 1):
        place = f"guide path {number}"
        fields = {
            **_translations(item, "title", place, required=True),
            **_translations(item, "summary", place, required=False),
            "url": item.get("url", ""),
            "position": item.get("position", number),
            "is_published": bool(item.get("is_published", False)),
        }
        guide, _created = GuidePath.objects.update_or_create(slug=item["slug"], defaults=fields)
        guides.append(guide)
    return guides


@transaction.atomic
def quiz_import(*, data: dict) -> Quiz:
    """Create or update a quiz, its questions and choices by slug and position.

    Recorded answers are never touched: a question or choice that has answers
    and is missing from the file makes the import fail instead of deleting it.
    """
    slugs = data.get("guide_paths", [])
    guides = list(GuidePath.objects.filter(slug__in=slugs))
    missing = set(slugs) - {guide.slug for guide in guides}
    if missing:
        raise QuizFileError("", f"unknown guide paths: {', '.join(sorted(missing))}.")
    quiz, _created = Quiz.objects.update_or_create(
        slug=data["slug"],
        defaults={
            **_translations(data, "title", "quiz", required=True),
            **_translations(data, "description", "quiz", required=False),
            "level": data.get("level", Level.BEGINNER),
            "pass_mark": data.get("pass_mark", 70),
            "shuffle_choices": bool(data.get("shuffle_choices", False)),
            "is_published": bool(data.get("is_published", False)),
        },
    )
    quiz.guide_paths.set(guides)
    questions = data.get("questions", [])
    for number, item in enumerate(questions, 1):
        place = f"question {number}"
        question, _created = Question.objects.update_or_create(
            quiz=quiz,
            position=number,
            defaults={
                **_translations(item, "prompt", place, required=True),
                **_translations(item, "explanation", place, required=False),
                **_translations(item, "guide_url", place, required=False),
                "kind": item.get("kind", QuestionKind.SINGLE),
            },
        )
        choices = item.get("choices", [])
        if sum(1 for choice in choices if choice.get("correct")) != 1:
            raise QuizFileError(place, "a single-choice question needs exactly one correct choice.")
        for choice_number, choice_item in enumerate(choices, 1):
            choice_place = f"{place}, choice {choice_number}"
            Choice.objects.update_or_create(
                question=question,
                position=choice_number,
                defaults={
                    **_translations(choice_item, "text", choice_place, required=True),
                    **_translations(choice_item, "feedback", choice_place, required=False),
                    "is_correct": bool(choice_item.get("correct", False)),
                },
            )
        _delete_unrecorded(question.choices.filter(position__gt=len(choices)), place)
    _delete_unrecorded(quiz.questions.filter(position__gt=len(questions)), "quiz")
    return quiz


def _delete_unrecorded(queryset, place: str) -> None:
    try:
        queryset.delete()
    except ProtectedError:
        raise QuizFileError(place, "it would delete content that learners have answered.") from None
