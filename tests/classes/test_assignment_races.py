"""Assignments raced: parallel Starts at the last attempt allowed make one attempt, and the
others resume it or are refused; answers racing past the deadline are refused alike and the
attempt is submitted once. Never an error.

PostgreSQL only, where requests really run side by side (SQLite's test database locks).
"""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from quizzes.classes.services import class_create, class_join
from quizzes.learning.services import TimeUp, answer_record
from quizzes.models import Assignment, Attempt
from tests.classes.conftest import make_learner
from tests.factories import choice_of, content_of, make_quiz, question_url

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="requests side by side: the PostgreSQL run"
    ),
    pytest.mark.django_db(transaction=True),
]
STARTS = 6


def _in_parallel(work, count: int) -> list[Exception]:
    barrier, errors = threading.Barrier(count), []

    def run(n):
        try:
            barrier.wait()
            work(n)
        except Exception as error:  # noqa: BLE001 (reported to the test)
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def _assignment(**rules) -> tuple[Assignment, object]:
    # Plain accounts: a transactional test's database has lost the migrations' groups.
    klass = class_create(name="Racing", instructor=make_learner("teacher"))
    learner = make_learner("ada")
    class_join(klass=klass, learner=learner)
    return Assignment.objects.create(klass=klass, quiz=make_quiz(), **rules), learner


def test_parallel_starts_at_the_last_attempt_make_one_and_no_error():
    assignment, learner = _assignment(attempt_limit=2, time_limit=timedelta(minutes=5))
    first = Client()
    first.force_login(learner)
    first.post(f"/en/assignments/{assignment.pk}/start/")
    Attempt.objects.filter(assignment=assignment).update(completed_at=timezone.now())
    clients = []
    for _n in range(STARTS):
        client = Client()
        client.force_login(learner)
        clients.append(client)
    statuses, places = [], []

    def start(n):
        response = clients[n].post(f"/en/assignments/{assignment.pk}/start/")
        statuses.append(response.status_code)
        places.append(response.get("Location"))

    assert _in_parallel(start, STARTS) == []
    numbers = sorted(Attempt.objects.filter(assignment=assignment).values_list("number", flat=True))
    assert numbers == [1, 2]
    second = Attempt.objects.get(assignment=assignment, number=2)
    assert statuses == [302] * STARTS
    assert set(places) == {question_url(second, 1)}  # Each resumes the one that was made.


def test_answers_racing_past_the_deadline_are_refused_and_submit_the_attempt_once():
    assignment, learner = _assignment(time_limit=timedelta(minutes=5))
    client = Client()
    client.force_login(learner)
    client.post(f"/en/assignments/{assignment.pk}/start/")
    attempt = Attempt.objects.get(assignment=assignment)
    quiz = content_of(assignment.quiz)
    answer_record(
        attempt=attempt,
        quiz=quiz,
        question=quiz.questions[0],
        choices=quiz.questions[0].choices[:1],
    )
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now())
    refused = []

    def late(n):
        try:
            answer_record(
                attempt=Attempt.objects.get(pk=attempt.pk),
                quiz=quiz,
                question=quiz.questions[1],
                choices=quiz.questions[1].choices[:1],
            )
        except TimeUp:
            refused.append(n)

    assert _in_parallel(late, 4) == []
    assert len(refused) == 4
    attempt.refresh_from_db()
    assert attempt.completed_at == attempt.deadline
    assert (attempt.score, attempt.max_score, attempt.answers.count()) == (1, 8, 1)
    assert choice_of(assignment.quiz, 1, correct=True).pk == quiz.questions[0].choices[0].pk
