"""A short-answer question as a learner answers it, in each language, and as answers regrade."""

import pytest

from quizzes.learning.services import answers_regrade
from quizzes.models import Answer
from tests.factories import (
    answer_number,
    make_quiz,
    make_short_answer,
    question_url,
    results_url,
    start,
)
from tests.learning.test_query_counts import ANSWER_POST


@pytest.fixture
def words(guide):
    quiz = make_quiz(slug="words", questions=1, guide=guide)
    make_short_answer(quiz, 1)
    return quiz


def test_the_page_asks_for_a_text_labelled_by_its_prompt(client, words):
    attempt = start(client, words, "fr")
    page = client.get(question_url(attempt, 1, "fr")).content.decode()
    assert 'type="text" name="choice"' in page
    assert 'autocomplete="off"' in page and 'spellcheck="false"' in page
    assert 'aria-labelledby="prompt text-answer-label"' in page
    assert ">Votre réponse</label>" in page
    assert 'type="radio"' not in page and "réduction globale" not in page


@pytest.mark.parametrize(("lang", "typed"), [("en", " All-Reduce "), ("fr", "Réduction globale")])
def test_the_accepted_answer_in_the_attempt_s_language_is_right(client, words, lang, typed):
    attempt = start(client, words, lang)
    assert answer_number(client, attempt, 1, typed, lang).status_code == 302
    recorded = Answer.objects.get(attempt=attempt)
    assert recorded.is_correct and recorded.response == typed.strip()
    page = client.get(question_url(attempt, 1, lang)).content.decode()
    assert f"<span>{typed.strip()}</span>" in page  # The learner's answer.
    expected = {"en": "all-reduce", "fr": "réduction globale"}[lang]
    assert f"<span>{expected}</span>" in page  # The expected one.


def test_a_known_mistake_shows_its_feedback_and_the_expected_answer(client, words):
    attempt = start(client, words, "fr")
    answer_number(client, attempt, 1, "une diffusion", "fr")
    recorded = Answer.objects.get(attempt=attempt)
    assert not recorded.is_correct and recorded.choice.text_fr == "*diffusion*"
    page = client.get(results_url(attempt, "fr")).content.decode()
    assert "Une diffusion envoie, elle ne somme pas." in page
    assert "<span>réduction globale</span>" in page


@pytest.mark.parametrize(
    ("typed", "named"),
    [("une diffusion", True), (" Diffusion ", False)],  # Said once: "Diffusion" matches it.
)
def test_the_review_names_the_known_mistake_matched_unless_the_answer_says_it(
    client, words, typed, named
):
    attempt = start(client, words, "fr")
    answer_number(client, attempt, 1, typed, "fr")
    assert Answer.objects.get(attempt=attempt).choice.text_fr == "*diffusion*"
    page = client.get(question_url(attempt, 1, "fr")).content.decode()
    assert ("correspond à «\u00a0diffusion\u00a0»" in page) is named
    assert "Une diffusion envoie, elle ne somme pas." in page


def test_an_answer_that_fits_nothing_is_wrong_without_feedback(client, words):
    attempt = start(client, words)
    answer_number(client, attempt, 1, "gather")
    recorded = Answer.objects.get(attempt=attempt)
    assert (recorded.is_correct, recorded.choice, recorded.response) == (False, None, "gather")
    page = client.get(question_url(attempt, 1)).content.decode()
    assert "matches no accepted answer" in page and "A broadcast sends" not in page


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("", {"en": "Type your answer.", "fr": "Tapez votre réponse."}),
        ("x" * 10_000, {"en": "too long", "fr": "trop long pour une réponse"}),
        ("a\x00b", {"en": "nothing was changed", "fr": "rien n’a été modifié"}),
    ],
)
def test_what_can_t_be_taken_is_refused_and_records_nothing(client, words, lang, typed, says):
    attempt = start(client, words, lang)
    response = answer_number(client, attempt, 1, typed, lang)
    assert response.status_code == 400
    page = response.content.decode()
    assert says[lang] in page
    assert ('aria-invalid="true"' in page) is ("\x00" not in typed)  # NUL: the 400 page.
    assert not Answer.objects.exists()


def test_a_lone_surrogate_in_the_body_is_refused_not_a_500(client, words):
    attempt = start(client, words)
    body = "choice=a%ED%A0%80b"  # U+D800 as UTF-8 bytes would be: not UTF-8.
    response = client.post(
        question_url(attempt, 1), body, content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 400
    assert "a character that can't be read" in response.content.decode().replace("&#x27;", "'")
    assert not Answer.objects.exists()


def test_regrading_matches_the_answers_again_in_the_attempt_s_language(client, words):
    question = words.questions.get()
    for typed, lang in (("all-reduce", "en"), ("AllReduce", "en"), ("réduction globale", "fr")):
        attempt = start(client, words, lang, start_over=True)
        answer_number(client, attempt, 1, typed, lang)
    right = question.choices.get(position=1)
    right.text_en = "all*reduce"
    right.save()
    regraded = answers_regrade(questions=words.questions.all())
    assert (regraded.answers, regraded.attempts) == (1, 1)
    graded = {a.response: a.is_correct for a in Answer.objects.all()}
    assert graded == {"all-reduce": True, "AllReduce": True, "réduction globale": True}
    assert answers_regrade(questions=words.questions.all()).answers == 0  # Settled.


@pytest.mark.parametrize("size", [8, 40])
@pytest.mark.parametrize(("typed", "picks"), [("all-reduce", 1), ("a broadcast", 1), ("x", 0)])
def test_an_answer_costs_what_a_pick_does_or_one_less_without_a_match(
    client, guide, django_assert_num_queries, size, typed, picks
):
    quiz = make_quiz(questions=size, guide=guide)
    make_short_answer(quiz, 1)
    attempt = start(client, quiz)
    with django_assert_num_queries(ANSWER_POST - 1 + picks):
        assert answer_number(client, attempt, 1, typed).status_code == 302
    assert attempt.answers.get().picks.count() == picks
