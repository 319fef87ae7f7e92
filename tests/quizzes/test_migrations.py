"""Data migrations keep what was recorded."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("quizzes", "0006_attempt_learner_key")]
AFTER = [("quizzes", "0007_answer_choice")]


@pytest.mark.django_db(transaction=True)
def test_answers_get_their_one_pick_as_their_choice():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    Quiz, Attempt = old.get_model("quizzes", "Quiz"), old.get_model("quizzes", "Attempt")
    Answer, AnswerChoice = (
        old.get_model("quizzes", "Answer"),
        old.get_model("quizzes", "AnswerChoice"),
    )
    quiz = Quiz.objects.create(slug="q", title_en="Q", title="Q")
    question = quiz.questions.create(position=1, prompt_en="P", prompt="P")
    other = quiz.questions.create(position=2, prompt_en="P2", prompt="P2")
    right, wrong = (
        question.choices.create(position=n, text=f"C{n}", text_en=f"C{n}", is_correct=n == 1)
        for n in (1, 2)
    )
    attempt = Attempt.objects.create(quiz=quiz, learner_key="k", language="en")
    one = Answer.objects.create(attempt=attempt, question=question, is_correct=False)
    AnswerChoice.objects.create(answer=one, choice=wrong)
    several = Answer.objects.create(attempt=attempt, question=other, is_correct=False)
    AnswerChoice.objects.create(answer=several, choice=right)
    AnswerChoice.objects.create(answer=several, choice=wrong)

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps.get_model("quizzes", "Answer")
    assert new.objects.get(pk=one.pk).choice_id == wrong.pk
    assert new.objects.get(pk=several.pk).choice_id is None
    assert AnswerChoice.objects.count() == 3

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_raced_attempts_keep_one_first_and_one_in_progress():
    before, after = (
        [("quizzes", "0007_answer_choice")],
        [("quizzes", "0008_attempt_kinds_and_one_in_progress")],
    )
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    Quiz, Attempt = old.get_model("quizzes", "Quiz"), old.get_model("quizzes", "Attempt")
    quiz = Quiz.objects.create(slug="q", title_en="Q", title="Q")
    doubled = [  # A double click on Start, before the constraints.
        Attempt.objects.create(quiz=quiz, learner_key="k", language="en", is_first=True)
        for _ in range(2)
    ]
    other = Attempt.objects.create(quiz=quiz, learner_key="other", language="en", is_first=True)

    executor = MigrationExecutor(connection)
    executor.migrate(after)
    new = executor.loader.project_state(after).apps.get_model("quizzes", "Attempt")
    first, second = (new.objects.get(pk=attempt.pk) for attempt in doubled)
    assert (first.is_first, second.is_first) == (True, False)
    assert first.abandoned_at is not None and second.abandoned_at is None
    assert (
        new.objects.get(pk=other.pk).is_first and new.objects.get(pk=other.pk).abandoned_at is None
    )

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
