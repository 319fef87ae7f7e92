"""The answer as the question page's script posts it (quizzes/static/quizzes/step.js): one
response with the feedback and the next question, the same HTML as their full pages, and
every refusal as the plain form gets it, for the script to fall back on."""

import json
import re

import pytest

from quizzes.models import Answer
from tests.factories import choice_of, make_quiz, question_url, start

SCRIPT = {"HTTP_ACCEPT": "application/json"}
BROWSER_FORM = {"HTTP_ACCEPT": "text/html,application/xhtml+xml,*/*;q=0.8"}


def _post(client, attempt, number, choice, lang="en", **headers):
    return client.post(question_url(attempt, number, lang), {"choice": choice.pk}, **headers)


def _main(html: str) -> str:
    """The step part of a full question page."""
    return html.split('<div id="step-page">', 1)[1].rsplit("</main>", 1)[0].rsplit("</div>", 1)[0]


@pytest.fixture
def quiz(guide):
    return make_quiz(questions=3, guide=guide)


def test_an_answer_brings_its_feedback_and_the_next_question(client, quiz):
    attempt = start(client, quiz)
    response = _post(client, attempt, 1, choice_of(quiz, 1, correct=False), **SCRIPT)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert "Accept" in response["Vary"]
    step = json.loads(response.content)
    feedback, following = step["feedback"], step["next"]
    assert feedback["url"] == question_url(attempt, 1)
    assert feedback["title"] == f"Question 1 of 3 · {quiz.title} · Quizsite"
    assert 'id="feedback"' in feedback["main"] and "Not quite." in feedback["main"]
    assert following["url"] == question_url(attempt, 2)
    assert following["title"] == f"Question 2 of 3 · {quiz.title} · Quizsite"
    # Its form's token is left for the script to fill in: no reply carries one.
    assert 'name="csrfmiddlewaretoken" value=""' in following["main"]
    assert not re.search(r'name="csrfmiddlewaretoken" value="[^"]', response.content.decode())
    assert f'value="{choice_of(quiz, 2, correct=True).pk}"' in following["main"]
    # The parts are what the full pages show, where the address leads without the script.
    assert feedback["main"].strip() == _main(client.get(feedback["url"]).content.decode()).strip()
    assert following["main"].split('name="csrfmiddlewaretoken"')[0] in _main(
        client.get(following["url"]).content.decode()
    )
    assert Answer.objects.filter(attempt=attempt).count() == 1


def test_the_last_answer_has_no_next_question_and_scores(client, quiz):
    attempt = start(client, quiz)
    for number in (1, 2):
        _post(client, attempt, number, choice_of(quiz, number, correct=True), **SCRIPT)
    step = json.loads(_post(client, attempt, 3, choice_of(quiz, 3, correct=True), **SCRIPT).content)
    assert step["next"] is None
    assert "See your results" in step["feedback"]["main"]
    attempt.refresh_from_db()
    assert (attempt.is_finished, attempt.score) == (True, 3)


def test_in_french_the_parts_are_french(client, quiz):
    attempt = start(client, quiz, "fr")
    response = _post(client, attempt, 1, choice_of(quiz, 1, correct=True), "fr", **SCRIPT)
    step = json.loads(response.content)
    assert step["feedback"]["title"].startswith("Question 1 sur 3 · ")
    assert "Bonne réponse." in step["feedback"]["main"]
    assert step["next"]["url"] == question_url(attempt, 2, "fr")


@pytest.mark.parametrize(
    "headers",
    [BROWSER_FORM, {}, {"HTTP_ACCEPT": ""}, {"HTTP_ACCEPT": "a/b/c;;;"}],
    ids=["browser-form", "no-accept", "empty-accept", "unreadable-accept"],
)
def test_a_plain_form_post_is_still_redirected_to_its_feedback(client, quiz, headers):
    attempt = start(client, quiz)
    response = _post(client, attempt, 1, choice_of(quiz, 1, correct=True), **headers)
    assert response.status_code == 302
    assert response["Location"] == question_url(attempt, 1) + "#feedback"


def test_refusals_are_the_plain_pages_and_record_nothing(client, quiz):
    """The script falls back on the plain form for anything but a recorded answer."""
    attempt = start(client, quiz)
    empty = client.post(question_url(attempt, 1), {}, **SCRIPT)
    assert (empty.status_code, empty["Content-Type"]) == (400, "text/html; charset=utf-8")
    early = _post(client, attempt, 2, choice_of(quiz, 2, correct=True), **SCRIPT)
    assert early.status_code == 409
    assert not Answer.objects.filter(attempt=attempt).exists()
    _post(client, attempt, 1, choice_of(quiz, 1, correct=True), **SCRIPT)
    again = _post(client, attempt, 1, choice_of(quiz, 1, correct=False), **SCRIPT)
    assert again.status_code == 409
    assert re.search(r"already answered", again.content.decode())
    assert list(Answer.objects.filter(attempt=attempt).values_list("is_correct", flat=True)) == [
        True
    ]


def test_the_page_loads_its_script(client, quiz):
    attempt = start(client, quiz)
    page = client.get(question_url(attempt, 1)).content.decode()
    assert re.search(r'<script src="/static/quizzes/step\.js" defer></script>', page)
    assert "data-next" not in page  # Only the feedback's "Next question" link has it.
