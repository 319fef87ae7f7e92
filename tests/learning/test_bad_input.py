"""Bad input gets a clear 4xx in the page's language and changes nothing."""

import pytest
from django.test import Client

from quizzes.models import Answer, Attempt
from tests.factories import answer, choice_of, make_quiz, question_url, start


def test_choice_of_another_question_is_refused(client, quiz):
    attempt = start(client, quiz)
    response = answer(client, attempt, 1, choice_of(quiz, 2, correct=True))
    assert response.status_code == 400
    assert "not one of this question&#x27;s choices" in response.content.decode()
    assert Answer.objects.count() == 0


@pytest.mark.parametrize("value", ["999999", "abc", "1.5", "-1", ""])
def test_unknown_or_malformed_choice_is_refused(client, quiz, value):
    attempt = start(client, quiz)
    response = client.post(question_url(attempt, 1), {"choice": value})
    assert response.status_code == 400
    assert Answer.objects.count() == 0


def test_no_choice_says_choose_an_answer(client, quiz):
    attempt = start(client, quiz)
    response = client.post(question_url(attempt, 1), {})
    html = response.content.decode()
    assert response.status_code == 400
    assert "Choose an answer." in html
    assert 'role="alert"' in html
    assert Answer.objects.count() == 0


def test_no_choice_in_french_says_so_in_french(client, quiz):
    attempt = start(client, quiz, "fr")
    response = client.post(question_url(attempt, 1, "fr"), {})
    assert response.status_code == 400
    assert "Choisissez une réponse." in response.content.decode()


def test_second_submit_records_nothing_and_shows_the_recorded_feedback(client, quiz):
    attempt = start(client, quiz)
    assert answer(client, attempt, 1, choice_of(quiz, 1, correct=False)).status_code == 302
    response = answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    html = response.content.decode()
    assert response.status_code == 409
    assert "You have already answered this question." in html
    assert "Not quite." in html
    assert Answer.objects.count() == 1
    assert Answer.objects.get().is_correct is False


def test_answering_a_finished_attempt_changes_nothing(client, guide):
    quiz = make_quiz(questions=2, guide=guide)
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    answer(client, attempt, 2, choice_of(quiz, 2, correct=True))
    attempt.refresh_from_db()
    finished_at = attempt.completed_at
    response = answer(client, attempt, 2, choice_of(quiz, 2, correct=False))
    assert response.status_code == 409
    attempt.refresh_from_db()
    assert (attempt.score, attempt.completed_at) == (2, finished_at)


def test_answering_ahead_of_the_open_question_is_refused(client, quiz):
    attempt = start(client, quiz)
    response = answer(client, attempt, 3, choice_of(quiz, 3, correct=True))
    assert response.status_code == 409
    assert "Question 1 is still waiting for your answer" in response.content.decode()
    assert Answer.objects.count() == 0


def test_a_bad_choice_ahead_of_the_open_question_says_which_question_is_open(client, quiz):
    attempt = start(client, quiz)
    response = client.post(question_url(attempt, 3), {"choice": "nope"})
    assert response.status_code == 409
    assert "Question 1 is still waiting for your answer" in response.content.decode()
    assert Answer.objects.count() == 0


@pytest.mark.parametrize("number", [0, 9, 1000])
def test_question_number_out_of_range_is_404(client, quiz, number):
    attempt = start(client, quiz)
    response = client.get(question_url(attempt, number))
    assert response.status_code == 404
    assert f"This quiz has no question {number}." in response.content.decode()


def test_non_numeric_question_number_is_404(client, quiz):
    attempt = start(client, quiz)
    response = client.get(f"/en/attempts/{attempt.public_id}/questions/two/")
    assert response.status_code == 404


# A well-formed UUID that no attempt has: a fixed one, as every pytest-xdist worker must collect
# the same test ids.
@pytest.mark.parametrize(
    "public_id", ["5bdaa44a-ae44-436c-8565-12bc74bcd537", "not-a-uuid", "1234"]
)
def test_unknown_or_malformed_attempt_is_404(client, quiz, public_id):
    start(client, quiz)
    response = client.get(f"/en/attempts/{public_id}/questions/1/")
    assert response.status_code == 404
    response = client.get(f"/en/attempts/{public_id}/results/")
    assert response.status_code == 404


def test_another_learners_attempt_is_404_and_unchanged(client, quiz):
    attempt = start(client, quiz)
    intruder = Client()
    intruder.get("/en/")
    for url in (question_url(attempt, 1), f"/en/attempts/{attempt.public_id}/results/"):
        response = intruder.get(url)
        assert response.status_code == 404
        assert "There is no such attempt, or it is not yours." in response.content.decode()
    response = answer(intruder, attempt, 1, choice_of(quiz, 1, correct=True))
    assert response.status_code == 404
    assert Answer.objects.count() == 0


def test_another_signed_in_learners_attempt_is_404(client, quiz, django_user_model):
    owner = django_user_model.objects.create_user("ada", password="pw-ada-12345")
    client.force_login(owner)
    attempt = start(client, quiz)
    other = Client()
    other.force_login(django_user_model.objects.create_user("bob", password="pw-bob-12345"))
    assert other.get(question_url(attempt, 1)).status_code == 404


def test_unpublished_quiz_is_404_for_learners(client, guide):
    make_quiz(slug="draft", published=False, guide=guide)
    response = client.get("/en/quizzes/draft/")
    assert response.status_code == 404
    assert "There is no quiz at this address." in response.content.decode()
    assert client.post("/en/quizzes/draft/start/").status_code == 404
    assert Attempt.objects.count() == 0
    assert "draft" not in client.get("/en/").content.decode()


def test_start_needs_post(client, quiz):
    assert client.get("/en/quizzes/dp-quiz/start/").status_code == 405
    assert Attempt.objects.count() == 0


def test_post_without_csrf_token_is_refused_and_records_nothing(quiz):
    browser = Client(enforce_csrf_checks=True)
    page = browser.get("/en/quizzes/dp-quiz/")
    assert page.status_code == 200
    response = browser.post("/en/quizzes/dp-quiz/start/")
    assert response.status_code == 403
    assert "Form expired" in response.content.decode()
    assert Attempt.objects.count() == 0


def test_answer_without_csrf_token_is_refused(quiz):
    browser = Client(enforce_csrf_checks=True)
    browser.get("/en/quizzes/dp-quiz/")
    token = browser.cookies["csrftoken"].value
    browser.post("/en/quizzes/dp-quiz/start/", {"csrfmiddlewaretoken": token})
    attempt = Attempt.objects.get()
    choice = choice_of(quiz, 1, correct=True)
    response = browser.post(question_url(attempt, 1), {"choice": choice.pk})
    assert response.status_code == 403
    assert Answer.objects.count() == 0
