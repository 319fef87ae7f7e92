"""Shuffled choices: an order per attempt, the same on every page of that attempt (the
question, its feedback, the results' review), a new one for a retry or a practice; a
question that keeps its order, and every true-or-false question, keeps position order."""

import hashlib
import json
import re

from django.core.cache import caches
from django.urls import reverse

from quizzes.learning.parts import AnswerReview, Part, StepPart
from quizzes.models import Attempt, AttemptKind, Choice, Quiz
from tests.factories import answer, choice_of, make_quiz, question_url, results_url, start

ATTEMPTS = 12  # Enough for two of 6 choices (720 orders) to differ, or 2 (2) to be reversed.


def expected_order(attempt: Attempt, question_number: int) -> list[int]:
    """The choices' positions shuffled by the attempt's id, worked out here from the digest."""
    question = attempt.quiz.questions.get(position=question_number)
    choices = sorted(
        question.choices.all(),
        key=lambda c: hashlib.sha256(f"{attempt.public_id}:{c.pk}".encode()).hexdigest(),
    )
    return [choice.position for choice in choices]


def shown_order(html: str, question_number: int, *, after: str = "") -> list[int]:
    """The positions of question `question_number`'s choices in the order the page shows
    them (`make_quiz` names them "Q1 choice 3"), from `after` on."""
    html = html[html.index(after) :] if after else html
    shown = re.findall(rf"Q{question_number} choice (\d+)<", html)
    return [int(position) for position in dict.fromkeys(shown)]


def question_order(client, attempt: Attempt, number: int = 1) -> list[int]:
    return shown_order(client.get(question_url(attempt, number)).content.decode(), number)


def feedback_order(client, attempt: Attempt, number: int = 1) -> list[int]:
    html = client.get(question_url(attempt, number)).content.decode()
    return shown_order(html, number, after='<ul class="review-choices">')


def results_order(client, attempt: Attempt, number: int = 1) -> list[int]:
    html = client.get(results_url(attempt)).content.decode()
    return shown_order(html, number, after=f'id="review-{number}"')


def shuffled_quiz(guide, **fields) -> Quiz:
    return make_quiz(questions=1, choices=6, shuffle_choices=True, guide=guide, **fields)


def test_two_attempts_of_a_shuffled_quiz_see_different_orders(client, guide):
    quiz = shuffled_quiz(guide)
    first = start(client, quiz)
    order = question_order(client, first)
    assert order == expected_order(first, 1)
    assert sorted(order) == [1, 2, 3, 4, 5, 6]
    for _ in range(ATTEMPTS):
        other = start(client, quiz, start_over=True)
        other_order = question_order(client, other)
        assert other_order == expected_order(other, 1)
        if other_order != order:
            break
    assert other_order != order


def test_an_unshuffled_quiz_shows_position_order(client, guide):
    quiz = make_quiz(questions=1, choices=6, guide=guide)
    for _ in range(3):
        attempt = start(client, quiz, start_over=True)
        assert question_order(client, attempt) == [1, 2, 3, 4, 5, 6]


def _attempt_not_in_position_order(client, quiz: Quiz, numbers=(1,)) -> Attempt:
    """An attempt that would shuffle questions `numbers` out of position order (started
    over until one would)."""
    for _ in range(ATTEMPTS):
        attempt = start(client, quiz, start_over=True)
        if all(expected_order(attempt, n) != [1, 2, 3, 4, 5, 6] for n in numbers):
            return attempt
    raise AssertionError("every attempt kept position order")


def test_one_attempt_sees_one_order_on_reload_resume_feedback_and_results(client, guide):
    quiz = shuffled_quiz(guide)
    attempt = _attempt_not_in_position_order(client, quiz)
    order = expected_order(attempt, 1)
    assert question_order(client, attempt) == order
    assert question_order(client, attempt) == order  # Reloaded.
    assert start(client, quiz) == attempt  # Resumed.
    assert question_order(client, attempt) == order
    answer(client, attempt, 1, choice_of(quiz, 1, correct=False))
    assert feedback_order(client, attempt) == order
    assert results_order(client, attempt) == order
    mistakes = client.get(results_url(attempt) + "?mistakes=1").content.decode()
    assert shown_order(mistakes, 1, after='id="review-1"') == order


def test_attempts_in_different_orders_share_one_kept_part(client, guide, monkeypatch):
    """The kept step part, feedback and review are rendered once for every order (in the
    question's), and each attempt sees its own order."""
    quiz = shuffled_quiz(guide)
    caches["default"].clear()
    rendered: list[Part] = []
    marked = Part.marked
    monkeypatch.setattr(Part, "marked", lambda part: rendered.append(part) or marked(part))
    orders = set()
    for _ in range(3):
        attempt = _attempt_not_in_position_order(client, quiz)
        order = expected_order(attempt, 1)
        orders.add(tuple(order))
        assert question_order(client, attempt) == order
        answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
        assert feedback_order(client, attempt) == order
        assert results_order(client, attempt) == order
    assert len(orders) > 1
    forms = [part for part in rendered if isinstance(part, StepPart) and part.choices]
    reviews = [part for part in rendered if isinstance(part, AnswerReview)]
    # The question's form once, and the answer's review once, shared by its feedback and
    # its line in the results.
    assert len(forms) == len(reviews) == 1
    for part in forms + reviews:
        assert part.choices == part.question.choices
        assert "\x00choice" not in part.render()


def test_the_scripts_feedback_and_next_question_keep_the_attempts_order(client, guide):
    quiz = make_quiz(questions=2, choices=6, shuffle_choices=True, guide=guide)
    attempt = _attempt_not_in_position_order(client, quiz)
    reply = client.post(
        question_url(attempt, 1),
        {"choice": choice_of(quiz, 1, correct=True).pk},
        HTTP_ACCEPT="application/json",
    )
    parts = json.loads(reply.content)
    feedback = shown_order(parts["feedback"]["main"], 1, after='<ul class="review-choices">')
    assert feedback == expected_order(attempt, 1)
    assert shown_order(parts["next"]["main"], 2) == expected_order(attempt, 2)
    assert question_order(client, attempt, 2) == expected_order(attempt, 2)


def test_a_practice_attempt_gets_an_order_of_its_own(client, guide):
    quiz = shuffled_quiz(guide)
    attempt = start(client, quiz)
    order = question_order(client, attempt)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=False))
    practice_url = reverse("practice", kwargs={"public_id": attempt.public_id})
    for _ in range(ATTEMPTS):
        assert client.post(practice_url).status_code == 302
        practice = Attempt.objects.get(kind=AttemptKind.PRACTICE, abandoned_at=None)
        practice_order = question_order(client, practice)
        assert practice_order == expected_order(practice, 1)
        if practice_order != order:
            break
    assert practice_order != order
    answer(client, practice, 1, choice_of(quiz, 1, correct=True))
    assert feedback_order(client, practice) == practice_order
    assert results_order(client, practice) == practice_order
    assert results_order(client, attempt) == order  # The first attempt's review is unchanged.


def test_a_question_that_keeps_its_order_shows_position_order_in_a_shuffled_quiz(client, guide):
    quiz = make_quiz(questions=2, choices=6, shuffle_choices=True, guide=guide)
    quiz.questions.filter(position=2).update(keep_choice_order=True)
    attempt = _attempt_not_in_position_order(client, quiz, numbers=(1, 2))
    assert question_order(client, attempt, 1) == expected_order(attempt, 1)  # Shuffled,
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    assert question_order(client, attempt, 2) == [1, 2, 3, 4, 5, 6]  # but not this one.
    answer(client, attempt, 2, choice_of(quiz, 2, correct=False))
    assert feedback_order(client, attempt, 2) == [1, 2, 3, 4, 5, 6]
    assert results_order(client, attempt, 2) == [1, 2, 3, 4, 5, 6]
    assert results_order(client, attempt, 1) == expected_order(attempt, 1)


def test_a_true_or_false_question_keeps_true_then_false_in_a_shuffled_quiz(client, guide):
    quiz = make_quiz(questions=1, choices=2, shuffle_choices=True, guide=guide)
    question = quiz.questions.get()
    question.kind = "true_false"
    question.save()
    Choice.objects.filter(question=question, position=1).update(text_en="True")
    Choice.objects.filter(question=question, position=2).update(text_en="False")
    for _ in range(ATTEMPTS):
        attempt = start(client, quiz, start_over=True)
        if expected_order(attempt, 1) == [2, 1]:
            break
    assert expected_order(attempt, 1) == [2, 1]  # Shuffling would put False first,
    html = client.get(question_url(attempt, 1)).content.decode()
    true, false = (f'id="choice-{choice.pk}"' for choice in question.choices.all())
    assert html.index(true) < html.index(false)  # but True comes first.
