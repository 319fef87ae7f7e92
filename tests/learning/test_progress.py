"""My progress, and the status of each quiz where quizzes are listed (home, guide path and
quiz pages), for signed-in and anonymous learners."""

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User

from quizzes.learning.identity import LEARNER_COOKIE
from quizzes.learning.selectors import Learner, learner_progress, quiz_statuses
from quizzes.models import Attempt, AttemptKind
from tests.factories import PROGRESS_PAGE, answer, choice_of, make_guide, make_quiz, start


def take(client, quiz, *, wrong=(), stop_after=None):
    """Answer the quiz, wrong at the question numbers in `wrong`; stop after `stop_after`."""
    attempt = start(client, quiz)
    total = quiz.questions.count()
    for number in range(1, (stop_after or total) + 1):
        answer(client, attempt, number, choice_of(quiz, number, correct=number not in wrong))
    attempt.refresh_from_db()
    return attempt


@pytest.fixture
def two_quizzes(guide):
    first = make_quiz(slug="first", questions=4, guide=guide)
    second = make_quiz(slug="second", questions=8, guide=guide, title_en="Second quiz")
    return first, second


def test_a_visitor_with_no_attempt_sees_every_quiz_not_started(client, two_quizzes):
    page = client.get("/en/progress/").content.decode()
    assert "You have not taken a quiz yet." in page
    assert page.count("Not started") == 2
    assert "0 of 2 quizzes passed" in page
    assert ">My progress</a>" not in page  # No header link before an attempt.


def test_progress_of_an_anonymous_learner(client, two_quizzes):
    first, second = two_quizzes
    done = take(client, first, wrong=[2])  # 3 / 4: 75 %, passed at 70 %.
    take(client, second, stop_after=2)
    page = client.get("/en/progress/").content.decode()
    assert 'href="/en/progress/" aria-current="page">My progress</a>' in page
    assert "1 of 2 quizzes passed" in page
    assert "Passed" in page and "best 75%, last 75%" in page
    assert "In progress: question 3 of 8" in page
    assert f'href="/en/attempts/{done.public_id}/results/"' in page
    french = client.get("/fr/progress/").content.decode()
    assert "Ma progression" in french and "Quiz réussis\u00a0: 1 sur 2" in french


def test_best_and_last_scores_and_a_complete_guide_path(client, two_quizzes):
    first, second = two_quizzes
    take(client, first)  # 100 %
    take(client, first, wrong=[1, 2, 3])  # 25 %
    take(client, second, wrong=[1])  # 7 / 8: 88 %
    page = client.get("/en/progress/").content.decode()
    assert "best 100%, last 25%" in page
    assert "2 of 2 quizzes passed" in page and "Complete" in page


def test_practice_attempts_are_listed_and_marked_but_do_not_score(client, quiz):
    attempt = take(client, quiz, wrong=[1, 2, 3])  # 5 / 8: not passed
    Attempt.objects.create(
        quiz=quiz,
        learner_key=attempt.learner_key,
        language="en",
        kind=AttemptKind.PRACTICE,
        question_ids=[quiz.questions.get(position=1).pk],
        completed_at=attempt.completed_at,
        score=1,
        max_score=1,
    )
    page = client.get("/en/progress/").content.decode()
    assert '<strong class="badge">Practice</strong>' in page
    assert "best 62%, last 62%" in page and "Not passed yet" in page
    assert "1 / 1 (100%)" in page


def test_a_signed_in_learner_sees_their_account_s_attempts(client, quiz):
    user = User.objects.create_user("lea", password="pw-long-enough-1")
    client.force_login(user)
    home = client.get("/en/").content.decode()
    assert ">My progress</a>" not in home
    take(client, quiz)
    assert ">My progress</a>" in client.get("/en/").content.decode()
    page = client.get("/en/progress/").content.decode()
    assert "1 of 1 quiz passed" in page


def test_signing_in_on_another_device_shows_the_link(client, quiz):
    user = User.objects.create_user("lea", password="pw-long-enough-1")
    client.force_login(user)
    take(client, quiz)
    client.logout()
    client.post("/en/accounts/login/", {"username": "lea", "password": "pw-long-enough-1"})
    assert ">My progress</a>" in client.get("/en/").content.decode()


def test_a_tampered_learner_cookie_shows_nothing_of_anyone(client, quiz):
    take(client, quiz)
    client.cookies[LEARNER_COOKIE] = "forged:value"
    response = client.get("/en/progress/")
    assert response.status_code == 200
    assert "You have not taken a quiz yet." in response.content.decode()


@pytest.mark.parametrize("path", ["/en/", "/en/guides/data-parallelism/", "/en/quizzes/dp-quiz/"])
def test_listing_pages_show_the_status(client, quiz, path):
    take(client, quiz, stop_after=2)
    page = client.get(path).content.decode()
    assert "In progress: question 3 of 8" in page
    assert "Resume" in page
    take(client, quiz)  # Resumes and finishes it: 8 / 8.
    page = client.get(path).content.decode()
    assert "Passed" in page and "best 100%, last 100%" in page
    assert "In progress" not in page


def test_statuses_and_progress_selectors(client, two_quizzes):
    first, second = two_quizzes
    attempt = take(client, first, wrong=[1, 2])
    learner = Learner(user_id=None, key=attempt.learner_key)
    statuses = quiz_statuses(learner=learner, quiz_ids=[first.pk, second.pk])
    assert set(statuses) == {first.pk}
    status = statuses[first.pk]
    assert (status.state, status.best, status.passed) == ("done", 50, False)
    progress = learner_progress(learner=learner)
    (guide,) = progress.guides
    assert [item.status.state for item in guide.quizzes] == ["done", "not_started"]
    assert guide.passed_count == 0 and not guide.is_complete
    assert quiz_statuses(learner=Learner(user_id=None, key=None), quiz_ids=[first.pk]) == {}


def make_attempts(quiz, key, count):
    Attempt.objects.bulk_create(
        Attempt(
            quiz=quiz,
            learner_key=key,
            language="en",
            completed_at="2026-01-01T00:00Z",
            score=n % 9,
            max_score=8,
        )
        for n in range(count)
    )


@pytest.mark.parametrize(("attempts", "guides"), [(1, 2), (50, 2), (1, 20), (50, 20)])
def test_progress_queries_do_not_grow(client, db, attempts, guides, django_assert_num_queries):
    quizzes = [
        make_quiz(slug=f"quiz-{n}", questions=2, guide=make_guide(slug=f"guide-{n}"))
        for n in range(guides)
    ]
    attempt = start(client, quizzes[0])
    make_attempts(quizzes[-1], attempt.learner_key, attempts)
    with django_assert_num_queries(PROGRESS_PAGE):
        assert client.get("/en/progress/").status_code == 200


def test_dates_are_written_as_each_language_writes_them(client, quiz):
    attempt = start(client, quiz)
    Attempt.objects.filter(pk=attempt.pk).update(
        started_at=datetime(2026, 12, 2, 6, 49, tzinfo=UTC)
    )
    english = client.get("/en/progress/").content.decode()
    assert "2 Dec 2026, 06:49" in english and "a.m." not in english
    assert "02/12/2026 06:49" in client.get("/fr/progress/").content.decode()


def test_a_long_history_lists_the_newest_and_keeps_the_best_and_last(client, quiz):
    """The status reads only the attempts it shows: the best of 15 is the oldest, the last the
    newest; My progress lists the 10 newest and says there are earlier ones."""
    attempt = start(client, quiz)
    key = attempt.learner_key
    made = Attempt.objects.bulk_create(
        Attempt(
            quiz=quiz,
            learner_key=key,
            language="en",
            completed_at=datetime(2026, 1, 1 + n, 1, tzinfo=UTC),
            score=8 if n == 0 else 2 + n % 3,
            max_score=8,
        )
        for n in range(15)
    )
    for n, past in enumerate(made):  # started_at is stamped "now" on creation.
        Attempt.objects.filter(pk=past.pk).update(started_at=datetime(2026, 1, 1 + n, tzinfo=UTC))
    status = quiz_statuses(learner=Learner(user_id=None, key=key), quiz_ids=[quiz.pk])[quiz.pk]
    assert (status.best, status.last, status.passed) == (100, 50, True)
    assert status.in_progress.public_id == attempt.public_id and status.state == "in_progress"
    assert len(status.attempts) == 10 and status.earlier
    assert [a.started_at.day for a in status.attempts[1:]] == list(range(15, 6, -1))
    page = client.get("/en/progress/").content.decode()
    assert "Only your 10 newest attempts are listed." in page and "best 100%, last 50%" in page
