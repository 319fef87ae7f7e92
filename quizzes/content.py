"""A quiz's questions and choices, cached in each web process between two edits.

Every learner page reads the same questions and choices, which change only when an editor
saves. The cache key carries the quiz's `updated_at`, which the page reads anyway with the
attempt or the quiz, and every save or delete of one of its questions or choices moves that
stamp on (the receivers below, connected in `QuizzesConfig.ready`). A page so never shows
content older than the quiz row it has just read, in any process, without the processes
telling each other anything.
"""

from django.core.cache import cache
from django.utils import timezone

from .models import Choice, Question, Quiz

TIMEOUT = 3600  # Entries of older stamps are never read again; they just expire.


def quiz_questions(quiz: Quiz) -> list[Question]:
    """The quiz's questions in order, each with its choices prefetched."""
    key = f"quiz-questions:{quiz.pk}:{quiz.updated_at.isoformat()}"
    questions = cache.get(key)
    if questions is None:
        questions = list(Question.objects.filter(quiz=quiz).prefetch_related("choices"))
        cache.set(key, questions, TIMEOUT)
    return questions


def _touch(quizzes) -> None:
    quizzes.update(updated_at=timezone.now())


def question_changed(sender, instance: Question, **kwargs) -> None:
    _touch(Quiz.objects.filter(pk=instance.quiz_id))


def choice_changed(sender, instance: Choice, **kwargs) -> None:
    _touch(Quiz.objects.filter(questions=instance.question_id))
