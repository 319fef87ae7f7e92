import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.test import Client

from quizzes.learning.services import NotOpenYet, answer_record, attempt_start
from quizzes.models import Answer, Attempt
from tests.factories import (
    answer,
    choice_of,
    content_of,
    make_quiz,
    question_url,
    results_url,
    start,
)


def test_landing_page_shows_level_guides_count_and_prompts_only(client, quiz):
    response = client.get("/en/quizzes/dp-quiz/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "Guide-linked quiz · Intermediate" in html
    assert "Data parallelism quiz" in html
    assert 'href="/en/guides/data-parallelism/"' in html
    assert "Question 8 prompt" in html
    assert "Answers and explanations appear as you answer the quiz." in html
    assert "Q1 choice 1" not in html
    assert "Start the quiz" in html


def test_whole_quiz_in_english_with_feedback_after_each_answer(client, quiz):
    attempt = start(client, quiz)
    for n in range(1, 9):
        page = client.get(question_url(attempt, n)).content.decode()
        assert f"Question {n} of 8" in page
        assert f"Question {n} prompt" in page
        assert f"Explanation {n}" not in page
        correct = n <= 6
        response = answer(client, attempt, n, choice_of(quiz, n, correct=correct))
        assert response.status_code == 302
        assert response["Location"] == question_url(attempt, n) + "#feedback"
        page = client.get(response["Location"]).content.decode()
        assert ("Correct." if correct else "Not quite.") in page
        assert f"Explanation {n} in English." in page
        assert "Read more in the guide" in page
        assert "Your answer" in page and "Correct answer" in page
        if not correct:
            assert f"Q{n} feedback 2" in page
        assert ("Next question" if n < 8 else "See your results") in page

    attempt.refresh_from_db()
    assert attempt.is_finished
    assert (attempt.score, attempt.max_score) == (6, 8)
    page = client.get(results_url(attempt)).content.decode()
    assert "6 / 8" in page and "(75%)" in page
    assert "Passed: the pass mark is 70%." in page
    assert page.count("Explanation ") >= 8
    assert "Retry the quiz" in page
    assert "Back to Data parallelism" in page


def test_whole_quiz_in_french(client, quiz):
    attempt = start(client, quiz, lang="fr")
    assert attempt.language == "fr"
    for n in range(1, 9):
        response = answer(client, attempt, n, choice_of(quiz, n, correct=n % 2 == 0), lang="fr")
        page = client.get(response["Location"]).content.decode()
        assert f"Question {n} sur 8" in page
        assert f"Énoncé de la question {n}" in page
        assert f"Explication {n} en français." in page
        assert ("Bonne réponse." if n % 2 == 0 else "Pas tout à fait.") in page
    page = client.get(results_url(attempt, "fr")).content.decode()
    assert '<html lang="fr">' in page
    assert "4 / 8" in page
    assert "Pas encore réussi\u00a0: le seuil de réussite est de 70\u202f%." in page


def test_failing_score_is_not_passed(client, guide):
    quiz = make_quiz(questions=2, guide=guide)
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    answer(client, attempt, 2, choice_of(quiz, 2, correct=False))
    page = client.get(results_url(attempt)).content.decode()
    assert "1 / 2" in page and "(50%)" in page
    assert "Not passed yet" in page


def test_question_page_never_reveals_the_correct_choice(client, quiz):
    attempt = start(client, quiz)
    html = client.get(question_url(attempt, 1)).content.decode()
    correct = choice_of(quiz, 1, correct=True)
    wrong = choice_of(quiz, 1, correct=False)
    assert f'value="{correct.pk}"' in html
    assert "correct" not in html.lower().replace("check answer", "")
    # The correct and a wrong choice are marked up the same way.
    assert html.count(f'id="choice-{correct.pk}" required>') == 1
    assert html.count(f'id="choice-{wrong.pk}" required>') == 1


def test_cannot_skip_past_first_unanswered_question(client, quiz):
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    response = client.get(question_url(attempt, 5))
    assert response.status_code == 302
    assert response["Location"] == question_url(attempt, 2)


def test_results_before_the_end_go_to_the_open_question(client, quiz):
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    response = client.get(results_url(attempt))
    assert response["Location"] == question_url(attempt, 2)


def test_resume_unfinished_attempt_from_landing_page(client, quiz):
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    answer(client, attempt, 2, choice_of(quiz, 2, correct=True))
    html = client.get("/en/quizzes/dp-quiz/").content.decode()
    assert "Resume at question 3" in html
    assert f'href="{question_url(attempt, 3)}"' in html


def test_retry_starts_a_fresh_attempt_and_keeps_the_old_one(client, quiz):
    first = start(client, quiz)
    for n in range(1, 9):
        answer(client, first, n, choice_of(quiz, n, correct=True))
    second = start(client, quiz)
    assert second.pk != first.pk
    assert client.get(question_url(second, 1)).status_code == 200
    first.refresh_from_db()
    assert first.score == 8
    assert Answer.objects.filter(attempt=first).count() == 8
    assert Answer.objects.filter(attempt=second).count() == 0


def test_shuffled_choices_keep_their_order_for_one_attempt(client, guide):
    quiz = make_quiz(questions=1, choices=6, shuffle_choices=True, guide=guide)
    attempt = start(client, quiz)
    first = client.get(question_url(attempt, 1)).content.decode()
    again = client.get(question_url(attempt, 1)).content.decode()
    order = [c.pk for c in sorted(quiz.questions.get().choices.all(), key=attempt.choice_order_key)]
    for page in (first, again):
        positions = [page.index(f'id="choice-{pk}"') for pk in order]
        assert positions == sorted(positions)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_anonymous_attempt_belongs_to_the_browser_without_a_session(client, quiz, lang):
    attempt = start(client, quiz, lang)
    assert attempt.user is None
    assert len(attempt.learner_key) == 32
    assert attempt.learner_key in client.cookies["learner"].value  # Signed, then.
    assert settings.SESSION_COOKIE_NAME not in client.cookies
    assert Session.objects.count() == 0
    assert Attempt.objects.count() == 1
    assert client.get(question_url(attempt, 1, lang)).status_code == 200
    assert Client().get(question_url(attempt, 1, lang)).status_code == 404


def test_answer_record_refuses_a_question_ahead_of_the_open_one(quiz):
    attempt = attempt_start(quiz=quiz, user=None, learner_key="k" * 32)
    content = content_of(quiz)
    third = content.questions[2]
    with pytest.raises(NotOpenYet) as refusal:
        answer_record(attempt=attempt, quiz=content, question=third, choices=third.choices[:1])
    assert refusal.value.first_open == 1
    assert not Answer.objects.filter(attempt=attempt).exists()
