"""The quiz as the page's script takes it (quizzes/learning/static/quizzes/step.js): Start
brings the first open question, an answer its feedback and what follows it (the next question or the
results), the same HTML as their full pages, and every refusal as the plain form gets it,
for the script to fall back on."""

import json
import re

import pytest
from django.urls import reverse

from quizzes.models import Answer, Attempt
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


def _tokenless(html: str) -> str:
    return re.sub(r'(name="csrfmiddlewaretoken" value=")[^"]*"', r'\1"', html).strip()


def test_the_last_answer_brings_the_results(client, quiz):
    attempt = start(client, quiz)
    for number in (1, 2):
        _post(client, attempt, number, choice_of(quiz, number, correct=True), **SCRIPT)
    response = _post(client, attempt, 3, choice_of(quiz, 3, correct=False), **SCRIPT)
    step = json.loads(response.content)
    assert "See your results" in step["feedback"]["main"]
    attempt.refresh_from_db()
    assert (attempt.is_finished, attempt.score) == (True, 2)
    results = step["next"]
    assert results["url"] == f"/en/attempts/{attempt.public_id}/results/"
    assert results["title"] == f"Your results · {quiz.title} · Quizsite"
    assert "2 / 3" in results["main"] and "Practise the question I missed" in results["main"]
    assert not re.search(r'name="csrfmiddlewaretoken" value="[^"]', response.content.decode())
    page = client.get(results["url"]).content.decode()
    assert _tokenless(results["main"]) == _tokenless(_main(page))
    assert f"<title>Your results · {quiz.title} · Quizsite</title>" in page


def test_start_brings_the_first_open_question(client, quiz):
    page = client.get(quiz.get_absolute_url()).content.decode()
    assert re.search(r'<script src="/static/quizzes/step\.js" defer></script>', page)
    response = client.post(reverse("quiz_start", args=[quiz.slug]), **SCRIPT)
    assert (response.status_code, response["Content-Type"]) == (200, "application/json")
    assert "Accept" in response["Vary"]
    attempt = Attempt.objects.get()
    first = json.loads(response.content)["next"]
    assert first["url"] == question_url(attempt, 1)
    assert first["title"] == f"Question 1 of 3 · {quiz.title} · Quizsite"
    assert _tokenless(first["main"]) == _tokenless(_main(client.get(first["url"]).content.decode()))
    # Started again (resumed), at the first question with no answer.
    _post(client, attempt, 1, choice_of(quiz, 1, correct=True), **SCRIPT)
    again = json.loads(client.post(reverse("quiz_start", args=[quiz.slug]), **SCRIPT).content)
    assert again["next"]["url"] == question_url(attempt, 2)
    assert Attempt.objects.get() == attempt  # Resumed, not another attempt.


def test_start_for_a_signed_in_learner(client, quiz, django_user_model):
    client.force_login(django_user_model.objects.create_user("ada", password="x" * 12))
    response = client.post(reverse("quiz_start", args=[quiz.slug]), **SCRIPT)
    attempt = Attempt.objects.get(user__username="ada")
    assert json.loads(response.content)["next"]["url"] == question_url(attempt, 1)


def test_start_over_by_script_abandons_the_attempt_in_progress(client, quiz):
    attempt = start(client, quiz)
    url = reverse("quiz_start", args=[quiz.slug])
    reply = json.loads(client.post(url, {"start_over": "1"}, **SCRIPT).content)
    attempt.refresh_from_db()
    assert attempt.abandoned_at is not None
    assert reply["next"]["url"] == question_url(Attempt.objects.get(abandoned_at=None), 1)


def test_a_plain_start_is_still_redirected(client, quiz):
    response = client.post(reverse("quiz_start", args=[quiz.slug]), **BROWSER_FORM)
    assert response.status_code == 302
    assert response["Location"] == question_url(Attempt.objects.get(), 1)


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
    assert "data-next" not in page  # Only the feedback's link on to what follows has it.
