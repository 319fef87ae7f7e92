"""Answers racing on one attempt: each recorded once, and the attempt completed once.

PostgreSQL only, where requests really run side by side; on SQLite, IMMEDIATE
transactions run one at a time (tests/quizsite/test_sqlite_load.py).
"""

import threading
import time

import pytest
from django.db import connection, transaction

from quizzes.learning.services import AlreadyAnswered, answer_record, attempt_start
from quizzes.models import Answer, Attempt
from tests.factories import content_of, make_quiz

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="row locks: the PostgreSQL run of make test"
    ),
    pytest.mark.django_db(transaction=True),
]


def wait_for_lock_waiters(count: int) -> None:
    """Until `count` other connections wait on a lock (the attempt's row)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
            if cursor.fetchone()[0] >= count:
                return
        time.sleep(0.02)
    raise AssertionError(f"{count} answers never waited on the attempt's lock.")


def race(attempt: Attempt, questions) -> list[Exception]:
    """Answer each question in a thread of its own, all released at once by a lock holder."""
    locked, go, errors = threading.Event(), threading.Event(), []
    content = content_of(attempt.quiz)

    def hold_the_attempt():
        with transaction.atomic():
            Attempt.objects.select_for_update().get(pk=attempt.pk)
            locked.set()
            go.wait()
        connection.close()

    def answer(question):
        try:
            answer_record(
                attempt=Attempt.objects.get(pk=attempt.pk),
                quiz=content,
                question=question,
                choices=question.choices[:1],
            )
        except Exception as error:  # noqa: BLE001 (reported to the test)
            errors.append(error)
        finally:
            connection.close()

    holder = threading.Thread(target=hold_the_attempt)
    holder.start()
    locked.wait()
    threads = [threading.Thread(target=answer, args=(question,)) for question in questions]
    try:
        for waiting, thread in enumerate(threads, 1):
            thread.start()  # In order: PostgreSQL grants the lock to its waiters in turn.
            wait_for_lock_waiters(waiting)
    finally:  # Whatever failed, the lock goes: the tables are emptied after the test.
        go.set()
        for thread in [holder, *threads]:
            thread.join(10)
    return errors


def test_racing_last_answers_complete_the_attempt_once():
    quiz = make_quiz(questions=2)
    attempt = attempt_start(quiz=quiz, user=None, learner_key="k" * 32)
    assert race(attempt, list(content_of(quiz).questions)) == []
    attempt.refresh_from_db()
    assert attempt.completed_at is not None
    assert (attempt.score, attempt.max_score) == (2, 2)


def test_racing_answers_to_one_question_record_one():
    quiz = make_quiz(questions=2)
    attempt = attempt_start(quiz=quiz, user=None, learner_key="k" * 32)
    question = content_of(quiz).questions[0]
    errors = race(attempt, [question, question])
    assert [type(error) for error in errors] == [AlreadyAnswered]
    assert Answer.objects.filter(attempt=attempt).count() == 1
    attempt.refresh_from_db()
    assert attempt.completed_at is None
