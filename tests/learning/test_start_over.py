""" "Start over" asks first, without the page's script; after a finished attempt the quiz page
offers to take the quiz again and shows the best and last results."""

import re

from quizzes.models import Attempt
from tests.factories import answer, choice_of, start


def quiz_url(quiz, lang: str = "en") -> str:
    return f"/{lang}/quizzes/{quiz.slug}/"


def test_start_over_on_the_quiz_page_asks_first_and_abandons_nothing(client, quiz):
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    html = client.get(quiz_url(quiz)).content.decode()
    confirm = f"/en/quizzes/{quiz.slug}/start-over/"
    assert f'href="{confirm}"' in html
    assert 'name="start_over"' not in html  # No form that abandons in one click.
    page = client.get(confirm)
    text = page.content.decode()
    assert page.status_code == 200
    assert "Start over?" in text and "answered 1 question of 8" in text
    assert "stay recorded as an abandoned attempt" in text
    assert f'href="{attempt.question_url(2)}"' in text  # No, resume.
    assert re.search(r'<form method="post" action="/en/quizzes/[^"]+/start/">', text)
    assert 'name="start_over" value="1"' in text and "step.js" not in text
    attempt.refresh_from_db()
    assert attempt.is_open and Attempt.objects.count() == 1


def test_confirming_keeps_the_old_attempt_abandoned_with_its_answers(client, quiz):
    first = start(client, quiz)
    answer(client, first, 1, choice_of(quiz, 1, correct=False))
    second = start(client, quiz, start_over=True)  # The confirm page's form.
    first.refresh_from_db()
    assert second != first and first.abandoned_at is not None and second.is_open
    assert first.answers.count() == 1


def test_start_over_without_an_attempt_in_progress_goes_back_to_the_quiz(client, quiz):
    response = client.get(f"/en/quizzes/{quiz.slug}/start-over/")
    assert response.status_code == 302 and response["Location"] == quiz_url(quiz)
    assert client.post(f"/en/quizzes/{quiz.slug}/start-over/").status_code == 405


def test_start_over_page_in_french(client, quiz):
    start(client, quiz, "fr")
    html = client.get(f"/fr/quizzes/{quiz.slug}/start-over/").content.decode()
    assert "Recommencer\u202f?" in html and "Oui, recommencer" in html


def test_start_over_page_queries(client, quiz, django_assert_num_queries):
    start(client, quiz)
    url = f"/en/quizzes/{quiz.slug}/start-over/"
    client.get(url)
    with django_assert_num_queries(2):  # The quiz's stamp, the learner's status.
        assert client.get(url).status_code == 200


def finish(client, quiz, *, right: bool):
    attempt = start(client, quiz)
    for number in range(1, quiz.questions.count() + 1):
        answer(client, attempt, number, choice_of(quiz, number, correct=right))
    return attempt


def test_after_passing_the_quiz_page_offers_to_take_it_again(client, quiz):
    assert "Start the quiz" in client.get(quiz_url(quiz)).content.decode()
    finish(client, quiz, right=True)
    finish(client, quiz, right=False)
    html = client.get(quiz_url(quiz)).content.decode()
    assert "Take the quiz again" in html and "Start the quiz" not in html
    assert "Passed" in html and "best 100%, last 0%" in html
    french = client.get(quiz_url(quiz, "fr")).content.decode()
    assert "Refaire le quiz" in french
