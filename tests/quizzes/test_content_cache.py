"""Learner pages cache a quiz's questions and choices, and show an edit on the next request."""

from quizzes.models import Choice
from tests.factories import (
    answer,
    choice_of,
    make_guide,
    make_quiz,
    question_url,
    results_url,
    start,
)


def test_edited_question_shows_on_the_next_page(client, quiz):
    attempt = start(client, quiz)
    assert "Question 1 prompt" in client.get(question_url(attempt, 1)).content.decode()
    question = quiz.questions.get(position=1)
    question.prompt_en = "Which gradients does all-reduce average?"
    question.save()
    page = client.get(question_url(attempt, 1)).content.decode()
    assert "Which gradients does all-reduce average?" in page
    assert "Question 1 prompt" not in page


def test_edited_choice_shows_on_the_next_page(client, quiz):
    attempt = start(client, quiz)
    assert "Q1 choice 3" in client.get(question_url(attempt, 1)).content.decode()
    choice = Choice.objects.get(question__quiz=quiz, question__position=1, position=3)
    choice.text_en = "Only the last layer"
    choice.save()
    page = client.get(question_url(attempt, 1)).content.decode()
    assert "Only the last layer" in page
    assert "Q1 choice 3" not in page


def test_added_and_deleted_questions_change_the_count(client, quiz):
    assert ">8<" in client.get(f"/en/quizzes/{quiz.slug}/").content.decode()
    quiz.questions.create(position=9, prompt_en="A ninth question")
    assert ">9<" in client.get(f"/en/quizzes/{quiz.slug}/").content.decode()
    quiz.questions.get(position=9).delete()
    assert ">8<" in client.get(f"/en/quizzes/{quiz.slug}/").content.decode()


def test_deleted_choice_leaves_the_page(client, quiz):
    attempt = start(client, quiz)
    wrong = choice_of(quiz, 1, correct=False)
    assert wrong.text_en in client.get(question_url(attempt, 1)).content.decode()
    wrong.delete()
    assert wrong.text_en not in client.get(question_url(attempt, 1)).content.decode()


def test_edited_explanation_shows_on_the_feedback_and_results(client, guide):
    quiz = make_quiz(questions=1, guide=guide)
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    assert "Explanation 1 in English." in client.get(question_url(attempt, 1)).content.decode()
    assert "Explanation 1 in English." in client.get(results_url(attempt)).content.decode()
    question = quiz.questions.get()
    question.explanation_en = "All-reduce averages every replica's gradients."
    question.save()
    for url in (question_url(attempt, 1), results_url(attempt)):
        page = client.get(url).content.decode()
        assert "All-reduce averages every replica&#x27;s gradients." in page
        assert "Explanation 1 in English." not in page


def test_guide_path_changes_show_on_the_landing_page(client, quiz, guide):
    url = f"/en/quizzes/{quiz.slug}/"
    assert "Data parallelism</a>" in client.get(url).content.decode()
    guide.title_en = "Data parallelism, in depth"
    guide.save()
    assert "Data parallelism, in depth</a>" in client.get(url).content.decode()
    other = make_guide(slug="gradient-accumulation", title_en="Gradient accumulation")
    other.quizzes.add(quiz)  # From the guide path's side of the relation.
    assert "Gradient accumulation</a>" in client.get(url).content.decode()
    quiz.guide_paths.remove(guide)
    assert "Data parallelism, in depth</a>" not in client.get(url).content.decode()
    other.quizzes.clear()
    assert "Gradient accumulation</a>" not in client.get(url).content.decode()
    quiz.guide_paths.add(guide)
    guide.delete()
    assert "Data parallelism, in depth</a>" not in client.get(url).content.decode()
