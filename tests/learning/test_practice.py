"""Results that teach: a line per question, the reviews, only the mistakes on request, and a
practice attempt at the questions missed."""

import pytest
from django.contrib.auth.models import User

from quizzes.models import Attempt, AttemptKind, Choice, Question, Quiz
from tests.factories import answer, choice_of, make_quiz, question_url, results_url, start


def take(client, quiz, *, wrong=()):
    attempt = start(client, quiz)
    for number in range(1, quiz.questions.count() + 1):
        answer(client, attempt, number, choice_of(quiz, number, correct=number not in wrong))
    attempt.refresh_from_db()
    return attempt


def practice_url(attempt, lang="en"):
    return f"/{lang}/attempts/{attempt.public_id}/practice/"


def test_results_begin_with_a_line_per_question(client, quiz):
    attempt = take(client, quiz, wrong=[2, 5])
    page = client.get(results_url(attempt)).content.decode()
    summary = page[page.index('<ol class="summary">') : page.index("</ol>")]
    assert summary.count("✓</span> Right") == 6 and summary.count("✗</span> Wrong") == 2
    assert 'href="#review-2">Question 2 prompt</a>' in summary
    assert 'id="review-2"' in page and "Explanation 2 in English." in page


def test_show_only_my_mistakes_without_javascript(client, quiz):
    attempt = take(client, quiz, wrong=[2, 5])
    page = client.get(results_url(attempt) + "?mistakes=1").content.decode()
    reviews = page[page.index('<ol class="review">') :]
    assert reviews.count('class="review-item') == 2
    assert 'id="review-2"' in reviews and 'id="review-5"' in reviews
    assert 'id="review-1"' not in reviews
    assert "Showing your 2 mistakes." in page and 'href="?#review-heading"' in page
    assert 'href="?#review-1"' in page  # A right one's line leads to the full review.
    full = client.get(results_url(attempt)).content.decode()
    assert 'href="?mistakes=1#review-heading">Show only my mistakes</a>' in full


def test_practise_the_questions_missed(client, quiz):
    attempt = take(client, quiz, wrong=[2, 5])
    response = client.post(practice_url(attempt))
    practice = Attempt.objects.get(kind=AttemptKind.PRACTICE)
    assert response["Location"] == question_url(practice, 1)
    second, fifth = (quiz.questions.get(position=n).pk for n in (2, 5))
    assert practice.question_ids == [second, fifth]
    assert practice.learner_key == attempt.learner_key and not practice.is_first
    page = client.get(question_url(practice, 1)).content.decode()
    assert '<strong class="badge">Practice</strong>' in page
    assert "Question 1 of 2" in page and "Question 2 prompt" in page
    answer(client, practice, 1, choice_of(quiz, 2, correct=True))
    feedback = client.get(question_url(practice, 1)).content.decode()
    assert '<strong class="badge">Practice</strong>' in feedback
    answer(client, practice, 2, choice_of(quiz, 5, correct=False))
    results = client.get(results_url(practice)).content.decode()
    assert '<strong class="badge">Practice</strong>' in results
    assert "1 / 2" in results and "Practise the question I missed" in results
    french = client.get(question_url(practice, 1, "fr")).content.decode()
    assert '<strong class="badge">Entraînement</strong>' in french


def test_practice_leaves_the_quiz_attempts_and_the_reports_alone(client, quiz):
    attempt = take(client, quiz, wrong=[1])
    client.post(practice_url(attempt))
    # Starting the quiz again is a quiz attempt, not the practice one.
    retry = start(client, quiz)
    assert retry.kind == AttemptKind.QUIZ and retry.pk != attempt.pk


def test_practice_again_replaces_the_practice_in_progress(client, quiz):
    attempt = take(client, quiz, wrong=[1, 3])
    client.post(practice_url(attempt))
    client.post(practice_url(attempt))
    practices = Attempt.objects.filter(kind=AttemptKind.PRACTICE)
    assert practices.count() == 2
    assert practices.filter(abandoned_at=None).count() == 1


def test_practice_from_another_learner_s_attempt_is_404(client, quiz):
    attempt = take(client, quiz, wrong=[1])
    client.cookies.clear()
    assert client.post(practice_url(attempt)).status_code == 404
    other = User.objects.create_user("other")
    client.force_login(other)
    assert client.post(practice_url(attempt)).status_code == 404
    assert not Attempt.objects.filter(kind=AttemptKind.PRACTICE).exists()


def test_practice_from_an_unfinished_attempt_is_409(client, quiz):
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=False))
    response = client.post(practice_url(attempt))
    assert response.status_code == 409
    assert "Finish the attempt first" in response.content.decode()
    assert not Attempt.objects.filter(kind=AttemptKind.PRACTICE).exists()


def test_practice_with_no_mistakes_says_so(client, quiz):
    attempt = take(client, quiz)
    response = client.post(practice_url(attempt, "fr"))
    assert response.status_code == 200
    assert "Rien à réviser" in response.content.decode()
    assert not Attempt.objects.filter(kind=AttemptKind.PRACTICE).exists()
    results = client.get(results_url(attempt)).content.decode()
    assert "Practise" not in results and "No mistakes: every answer was right." in results


@pytest.mark.parametrize("method", ["get", "put"])
def test_practice_takes_only_post(client, quiz, method):
    attempt = take(client, quiz, wrong=[1])
    assert getattr(client, method)(practice_url(attempt)).status_code == 405


def test_a_signed_in_learner_practises_on_their_account(client, quiz):
    user = User.objects.create_user("lea")
    client.force_login(user)
    attempt = take(client, quiz, wrong=[4])
    client.post(practice_url(attempt))
    practice = Attempt.objects.get(kind=AttemptKind.PRACTICE)
    assert practice.user == user and practice.learner_key == ""


def test_practice_of_a_multi_question_quiz_keeps_the_quiz_order(client, guide):
    quiz = make_quiz(slug="order", questions=5, guide=guide)
    attempt = take(client, quiz, wrong=[5, 1, 3])
    client.post(practice_url(attempt))
    practice = Attempt.objects.get(kind=AttemptKind.PRACTICE)
    ids = list(quiz.questions.order_by("position").values_list("pk", flat=True))
    assert practice.question_ids == [ids[0], ids[2], ids[4]]


def test_an_unpublished_quiz_shows_its_results_as_they_were_and_starts_no_practice(client, db):
    quiz = make_quiz(questions=2)
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=False))
    answer(client, attempt, 2, choice_of(quiz, 2, correct=True))
    Quiz.objects.filter(pk=quiz.pk).update(is_published=False)
    added = Question.objects.create(
        quiz=quiz, position=3, prompt="Added since", explanation="The answer of the new one"
    )
    Choice.objects.create(question=added, position=1, text="New right", is_correct=True)
    page = client.get(results_url(attempt)).content.decode()
    assert "Added since" not in page and "The answer of the new one" not in page
    assert "New right" not in page
    response = client.post(f"/en/attempts/{attempt.public_id}/practice/")
    assert response.status_code == 409
    assert "no practice can start on it" in response.content.decode()
    assert Attempt.objects.count() == 1
