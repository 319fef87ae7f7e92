"""The question pages' step parts and the results are kept and shared between learners at
the same point of a quiz (quizzes/learning/parts.py, kept): each still gets their own
attempt's links and CSRF token, and an edit is seen at once."""

import re

import pytest
from django.contrib.auth.models import User
from django.core.cache import caches
from django.test import Client

from tests.factories import choice_of, make_quiz, question_url, results_url, start

TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@pytest.fixture
def quiz(guide):
    return make_quiz(questions=2, guide=guide)


def _learner(quiz):
    """A learner who started the quiz, whose answers must carry a valid CSRF token."""
    client = Client()
    attempt = start(client, quiz)
    client.handler.enforce_csrf_checks = True
    return client, attempt


def _answer(client, attempt, number, choice):
    page = client.get(question_url(attempt, number)).content.decode()
    data = {"choice": choice.pk, "csrfmiddlewaretoken": TOKEN.search(page).group(1)}
    return client.post(question_url(attempt, number), data)


def test_a_kept_part_carries_each_learners_own_links_and_token(quiz):
    (first, one), (second, other) = _learner(quiz), _learner(quiz)
    attempts = [one, other]
    choice = choice_of(quiz, 1, correct=True)
    for client, attempt in zip((first, second), attempts, strict=True):
        assert _answer(client, attempt, 1, choice).status_code == 302
    pages = [
        client.get(question_url(attempt, 1)).content.decode()
        for client, attempt in zip((first, second), attempts, strict=True)
    ]
    for page, attempt, other in zip(pages, attempts, reversed(attempts), strict=True):
        assert f'href="{question_url(attempt, 2)}"' in page
        assert str(other.public_id) not in page
    # Question 2's form, kept once: each learner's token is filled in, and is theirs.
    forms = [
        client.get(question_url(attempt, 2)).content.decode()
        for client, attempt in zip((first, second), attempts, strict=True)
    ]
    assert TOKEN.search(forms[0]).group(1) != TOKEN.search(forms[1]).group(1)
    assert _answer(second, attempts[1], 2, choice_of(quiz, 2, correct=True)).status_code == 302


def test_an_edit_shows_at_once_in_a_kept_part(client, quiz):
    attempt = start(client, quiz)
    assert "Question 1 prompt" in client.get(question_url(attempt, 1)).content.decode()
    question = quiz.questions.get(position=1)
    question.prompt_en = "An edited prompt"
    question.save()
    page = client.get(question_url(attempt, 1)).content.decode()
    assert "An edited prompt" in page and "Question 1 prompt" not in page


def test_feedback_parts_differ_by_what_was_picked(quiz):
    (right, one), (wrong, other) = _learner(quiz), _learner(quiz)
    attempts = [one, other]
    _answer(right, attempts[0], 1, choice_of(quiz, 1, correct=True))
    _answer(wrong, attempts[1], 1, choice_of(quiz, 1, correct=False))
    assert "Correct." in right.get(question_url(attempts[0], 1)).content.decode()
    assert "Not quite." in wrong.get(question_url(attempts[1], 1)).content.decode()


def test_kept_results_carry_each_learners_own_attempt_and_token(quiz):
    """Two learners with the same answers share the results part: each practises their own
    missed question, with their own token."""
    learners = [_learner(quiz), _learner(quiz)]
    for client, attempt in learners:
        _answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
        _answer(client, attempt, 2, choice_of(quiz, 2, correct=False))
    pages = [client.get(results_url(attempt)).content.decode() for client, attempt in learners]
    for page, (_, attempt), (_, other) in zip(pages, learners, reversed(learners), strict=True):
        assert f'action="/en/attempts/{attempt.public_id}/practice/"' in page
        assert str(other.public_id) not in page
    client, attempt = learners[1]
    token = TOKEN.search(pages[1]).group(1)
    practice = client.post(
        f"/en/attempts/{attempt.public_id}/practice/", {"csrfmiddlewaretoken": token}
    )
    assert practice.status_code == 302 and "/questions/1/" in practice["Location"]


def test_results_parts_differ_by_the_answers_and_the_grading(quiz):
    (right, one), (wrong, other) = _learner(quiz), _learner(quiz)
    for client, attempt, correct in ((right, one, True), (wrong, other, False)):
        for number in (1, 2):
            _answer(client, attempt, number, choice_of(quiz, number, correct=correct))
    assert "2 / 2" in right.get(results_url(one)).content.decode()
    assert "0 / 2" in wrong.get(results_url(other)).content.decode()


def test_the_quiz_page_kept_for_anonymous_learners_shows_each_their_own_status(quiz):
    """The page is kept once for the address; the status and Start are each learner's."""
    url = quiz.get_absolute_url()
    resuming, attempt = _learner(quiz)
    _answer(resuming, attempt, 1, choice_of(quiz, 1, correct=True))
    newcomer = Client(enforce_csrf_checks=True)
    learners = {"new": newcomer, "back": resuming}
    pages = {name: learner.get(url).content.decode() for name, learner in learners.items()}
    assert "Start the quiz" in pages["new"] and "Resume at question" not in pages["new"]
    assert f'href="{question_url(attempt, 2)}">Resume at question 2</a>' in pages["back"]
    assert str(attempt.public_id) not in pages["new"]
    # Only the learner with an attempt has the header's link to their progress.
    assert 'href="/en/progress/"' in pages["back"] and 'href="/en/progress/"' not in pages["new"]
    for page in pages.values():
        assert f'href="/en/accounts/login/?next={url}"' in page
        assert f'hreflang="fr" href="http://testserver/fr/quizzes/{quiz.slug}/"' in page
    # Each form's token is the learner's own: the newcomer can start.
    token = TOKEN.search(pages["new"]).group(1)
    started = newcomer.post(f"{url}start/", {"csrfmiddlewaretoken": token})
    assert started.status_code == 302


def test_a_message_for_an_anonymous_learner_shows_on_the_quiz_page(client, quiz):
    client.force_login(User.objects.create_user("ada", password="long-pass-phrase-9"))
    client.get(quiz.get_absolute_url())  # The signed-in learner's page, made anew.
    form = {"attempts": "keep", "password": "long-pass-phrase-9"}
    assert client.post("/en/accounts/delete/", form).status_code == 302
    page = client.get(quiz.get_absolute_url()).content.decode()  # Signed out now.
    assert "Your account is deleted; its attempts stay anonymously." in page
    again = client.get(quiz.get_absolute_url()).content.decode()
    assert "Your account is deleted" not in again and "Start the quiz" in again


def test_an_edit_shows_at_once_on_the_kept_quiz_page(client, quiz):
    assert "Question 1 prompt" in client.get(quiz.get_absolute_url()).content.decode()
    question = quiz.questions.get(position=1)
    question.prompt_en = "An edited prompt"
    question.save()
    page = client.get(quiz.get_absolute_url()).content.decode()
    assert "An edited prompt" in page and "Question 1 prompt" not in page


def test_a_page_kept_by_address_goes_to_the_small_cache_for_pages(client, quiz, settings):
    """The Host header's port varies the address without end: it churns only that cache."""
    caches["pages"].clear()
    before = len(caches["default"]._cache)
    for port in range(8000, 8005):
        page = client.get(quiz.get_absolute_url(), HTTP_HOST=f"testserver:{port}")
        assert f"http://testserver:{port}/fr/quizzes/" in page.content.decode()
    assert len(caches["pages"]._cache) == 5
    assert len(caches["default"]._cache) <= before + 3  # The page's parts, kept once.
    assert settings.CACHES["pages"]["OPTIONS"]["MAX_ENTRIES"] <= 1_000
