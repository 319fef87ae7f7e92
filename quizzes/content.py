"""A quiz with its questions, choices and guide paths, kept in each web process between edits.

Every learner page shows the same quiz, questions and choices, which change only when an
editor saves. They are kept per process under the quiz's `updated_at`, which the page reads
anyway (with the attempt, or alone), and every save or delete of one of its questions,
choices or guide paths, and every change of its guide paths, moves that stamp on (the
receivers below, connected in `QuizzesConfig.ready`). A page so never shows content older
than the row it has just read, in any process, without the processes telling each other
anything.

The objects are shared by the requests of a process, not copied as Django's cache framework
would (unpickling a quiz cost more than the queries it saves): views and templates only
read them.
"""

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from guides.models import GuidePath

from .models import Choice, Question, Quiz


@dataclass(frozen=True)
class QuizContent:
    updated_at: datetime
    quiz: Quiz
    questions: list[Question]  # In order, each with its choices prefetched.
    guide_paths: list[GuidePath]  # The published ones, in order.


_kept: dict[int, QuizContent] = {}  # By quiz id: only the newest stamp seen.


def quiz_content(quiz_id: int, updated_at: datetime) -> QuizContent:
    content = _kept.get(quiz_id)
    if content is None or content.updated_at != updated_at:
        quiz = Quiz.objects.get(pk=quiz_id)
        questions = list(Question.objects.filter(quiz=quiz).prefetch_related("choices"))
        guide_paths = list(quiz.guide_paths.published())
        content = QuizContent(quiz.updated_at, quiz, questions, guide_paths)
        _kept[quiz_id] = content
    return content


def quiz_questions(quiz: Quiz) -> list[Question]:
    return quiz_content(quiz.pk, quiz.updated_at).questions


def _touch(quizzes) -> None:
    quizzes.update(updated_at=timezone.now())


def question_changed(sender, instance: Question, **kwargs) -> None:
    _touch(Quiz.objects.filter(pk=instance.quiz_id))


def choice_changed(sender, instance: Choice, **kwargs) -> None:
    _touch(Quiz.objects.filter(questions=instance.question_id))


def guide_path_changed(sender, instance: GuidePath, **kwargs) -> None:
    """Saved, or about to be deleted (while its links to quizzes still exist)."""
    _touch(Quiz.objects.filter(guide_paths=instance))


def guide_paths_relinked(sender, instance, action: str, reverse: bool, pk_set, **kwargs) -> None:
    """A quiz's guide paths changed, from either side of the relation."""
    if action not in ("post_add", "post_remove", "pre_clear"):
        return
    if not reverse:  # quiz.guide_paths.add(...)
        _touch(Quiz.objects.filter(pk=instance.pk))
    elif action == "pre_clear":  # guide_path.quizzes.clear()
        _touch(Quiz.objects.filter(guide_paths=instance))
    else:  # guide_path.quizzes.add(quiz, ...)
        _touch(Quiz.objects.filter(pk__in=pk_set))
