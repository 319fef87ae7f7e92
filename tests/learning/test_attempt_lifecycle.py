"""One attempt in progress per learner and quiz, one first attempt, and attempts that take no
more answers: abandoned for a new one, or of a quiz unpublished since."""

import threading

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.test import Client

from quizzes.learning.services import attempt_start, attempts_claim
from quizzes.models import Answer, Attempt, AttemptKind, Quiz
from quizzes.reports.selectors import ReportFilter, attempts_for
from tests.factories import answer, choice_of, make_quiz, question_url, start


def test_start_again_resumes_the_attempt_in_progress(client, quiz):
    first = start(client, quiz)
    answer(client, first, 1, choice_of(quiz, 1, correct=True))
    assert start(client, quiz) == first
    assert Attempt.objects.count() == 1


@pytest.mark.parametrize("signed_in", [False, True], ids=["anonymous", "signed-in"])
def test_a_new_attempt_is_the_row_it_inserted(quiz, signed_in):
    """Start inserts through a compiled statement and builds the attempt from its values."""
    user = User.objects.create_user("ada") if signed_in else None
    attempt = attempt_start(quiz=quiz, user=user, learner_key="" if user else "k" * 32)
    stored = Attempt.objects.get(pk=attempt.pk)
    fields = [field.attname for field in Attempt._meta.concrete_fields]
    assert [getattr(attempt, name) for name in fields] == [getattr(stored, name) for name in fields]
    assert (stored.is_first, stored.kind, stored.question_ids) == (True, AttemptKind.QUIZ, None)
    assert Attempt.objects.filter(pk=attempt.pk, question_ids__isnull=True).exists()
    again = attempt_start(quiz=quiz, user=user, learner_key="" if user else "k" * 32)
    assert again == attempt  # Resumed.


def test_start_over_abandons_the_attempt_in_progress_and_keeps_its_answers(client, quiz):
    first = start(client, quiz)
    answer(client, first, 1, choice_of(quiz, 1, correct=True))
    second = start(client, quiz, start_over=True)
    first.refresh_from_db()
    assert second != first and first.abandoned_at is not None
    assert first.answers.count() == 1 and not second.is_first and first.is_first


def test_an_abandoned_attempt_takes_no_more_answers(client, quiz):
    first = start(client, quiz)
    start(client, quiz, start_over=True)
    page = client.get(question_url(first, 1)).content.decode()
    assert "You started this quiz over" in page and 'name="choice"' not in page
    response = answer(client, first, 1, choice_of(quiz, 1, correct=True))
    assert response.status_code == 409
    assert "You started this quiz over" in response.content.decode()
    assert not Answer.objects.filter(attempt=first).exists()


def test_an_unpublished_quizs_attempt_takes_no_more_answers(client, quiz):
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    Quiz.objects.filter(pk=quiz.pk).update(is_published=False)
    page = client.get(question_url(attempt, 2)).content.decode()
    assert "This quiz is no longer published" in page and 'name="choice"' not in page
    response = answer(client, attempt, 2, choice_of(quiz, 2, correct=True))
    assert response.status_code == 409
    assert attempt.answers.count() == 1
    assert client.get(question_url(attempt, 1)).status_code == 200  # The feedback stays.


def test_an_editors_preview_is_marked_and_left_out_of_the_reports(editor_client, guide):
    quiz = make_quiz(published=False, guide=guide)
    attempt = start(editor_client, quiz)
    assert attempt.kind == AttemptKind.PREVIEW and not attempt.is_first
    assert answer(editor_client, attempt, 1, choice_of(quiz, 1, correct=True)).status_code == 302
    everything = ReportFilter(first_only=False, with_practice=True)
    assert not attempts_for(quiz, everything).exists()


def test_practice_attempts_count_only_when_the_instructor_asks(quiz):
    practice = attempt_start(
        quiz=quiz, user=None, learner_key="k" * 32, kind=AttemptKind.PRACTICE, question_ids=[]
    )
    assert not practice.is_first
    assert not attempts_for(quiz, ReportFilter(first_only=False)).exists()
    assert list(attempts_for(quiz, ReportFilter(first_only=False, with_practice=True))) == [
        practice
    ]


def test_the_database_keeps_one_first_and_one_open_attempt(quiz):
    attempt_start(quiz=quiz, user=None, learner_key="k" * 32)
    for second in (
        {"is_first": True, "completed_at": "2026-01-01T00:00:00Z"},  # Another first.
        {"is_first": False},  # Another one in progress.
    ):
        with pytest.raises(IntegrityError), transaction.atomic():
            Attempt.objects.create(quiz=quiz, learner_key="k" * 32, language="en", **second)


def test_signing_in_keeps_the_attempt_in_progress_the_learner_was_taking(quiz):
    ada = User.objects.create_user("ada")
    account = attempt_start(quiz=quiz, user=ada)
    anonymous = attempt_start(quiz=quiz, user=None, learner_key="k" * 32)
    assert attempts_claim(learner_key="k" * 32, user=ada) == 1
    account.refresh_from_db()
    anonymous.refresh_from_db()
    assert account.abandoned_at is not None and anonymous.abandoned_at is None
    assert anonymous.user == ada
    assert (account.is_first, anonymous.is_first) == (True, False)


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="requests side by side: the PostgreSQL run"
)
@pytest.mark.django_db(transaction=True)
def test_twenty_parallel_starts_make_one_attempt():
    quiz = make_quiz(questions=2)
    client = Client()
    start(client, quiz)  # The learner's key, then the attempt the others race to make again.
    Attempt.objects.all().delete()
    cookies = client.cookies
    barrier, responses = threading.Barrier(20), []

    def click():
        racer = Client()
        racer.cookies = cookies
        barrier.wait()
        responses.append(racer.post(f"/en/quizzes/{quiz.slug}/start/"))
        connection.close()

    threads = [threading.Thread(target=click) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    # A click that waits past the pool's timeout for one of its connections gets a 503 (this
    # process's 20 threads share one worker's pool); every other one lands on one attempt.
    assert len(responses) == 20 and {r.status_code for r in responses} <= {302, 503}
    locations = {r["Location"] for r in responses if r.status_code == 302}
    assert len(locations) == 1
    attempt = Attempt.objects.get()
    assert attempt.is_first


def test_starts_are_limited_per_learner_and_per_address(client, quiz, settings):
    settings.ATTEMPT_STARTS_PER_LEARNER_PER_HOUR = 3
    settings.ATTEMPT_STARTS_PER_ADDRESS_PER_HOUR = 7
    url = f"/en/quizzes/{quiz.slug}/start/"
    client.post(url)  # Counted for the address: the browser has no key yet.
    statuses = [client.post(url, {"start_over": "1"}).status_code for _ in range(4)]
    assert statuses == [302, 302, 302, 429]  # The key's 3.
    assert Attempt.objects.count() == 4
    response = client.post(f"/en/attempts/{Attempt.objects.last().public_id}/practice/")
    assert response.status_code == 429 and "Retry-After" in response
    others = [Client(), Client()]  # Other learners at the same address.
    assert [other.post(url).status_code for other in others] == [302, 429]  # Its 7.
    assert Attempt.objects.count() == 5
