"""Learner pages keep a quiz's content, and show every kind of write on the next request."""

from dataclasses import FrozenInstanceError

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.loader import MigrationLoader
from django.utils import translation

from guides.models import GuidePath
from quizzes import snapshots
from quizzes.interchange.importing import quiz_import
from quizzes.interchange.quizfile import quiz_export
from quizzes.models import Choice, Question, Quiz
from tests.factories import (
    answer,
    choice_of,
    content_of,
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
        assert "All-reduce averages every replica's gradients." in page
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


# Writes that send no signal move the stamp too: each would leave a stale page otherwise.


def _question_page(client, quiz) -> str:
    attempt = start(client, quiz)
    return client.get(question_url(attempt, 1)).content.decode()


def test_a_queryset_update_of_a_prompt_shows_on_the_next_page(client, quiz):
    assert "Question 1 prompt" in _question_page(client, quiz)
    Question.objects.filter(quiz=quiz, position=1).update(prompt_en="Updated in bulk")
    assert "Updated in bulk" in _question_page(client, quiz)


def test_a_queryset_update_of_choices_shows_on_the_next_page(client, quiz):
    assert "Q1 choice 3" in _question_page(client, quiz)
    Choice.objects.filter(question__quiz=quiz, text_en="Q1 choice 3").update(text_en="Bulk text")
    assert "Bulk text" in _question_page(client, quiz)


def test_bulk_created_choices_show_on_the_next_page(client, quiz):
    assert "A fifth choice" not in _question_page(client, quiz)
    question = quiz.questions.get(position=1)
    Choice.objects.bulk_create([Choice(question=question, position=5, text_en="A fifth choice")])
    assert "A fifth choice" in _question_page(client, quiz)


def test_bulk_updated_questions_show_on_the_next_page(client, quiz):
    assert "Question 1 prompt" in _question_page(client, quiz)
    question = quiz.questions.get(position=1)
    question.prompt_en = "Bulk updated prompt"
    Question.objects.bulk_update([question], ["prompt_en"])
    assert "Bulk updated prompt" in _question_page(client, quiz)


def test_rows_updated_choices_show_on_the_next_page_in_their_own_language(client, quiz):
    """rows_update writes each column as named, whatever language is active."""
    assert "Q1 choice 3" in _question_page(client, quiz)
    choice = Choice.objects.get(question__quiz=quiz, text_en="Q1 choice 3")
    choice.text_en, choice.text_fr = "Rows updated", "Lignes écrites"
    with translation.override("fr"):
        Choice.objects.rows_update([choice], ["text_en", "text_fr"])
    assert "Rows updated" in _question_page(client, quiz)
    choice.refresh_from_db()
    assert (choice.text_en, choice.text_fr) == ("Rows updated", "Lignes écrites")


def test_a_queryset_update_of_a_quiz_moves_its_stamp(client, quiz):
    assert "Data parallelism quiz" in client.get(f"/en/quizzes/{quiz.slug}/").content.decode()
    Quiz.objects.filter(pk=quiz.pk).update(title_en="Renamed in bulk")
    assert "Renamed in bulk" in client.get(f"/en/quizzes/{quiz.slug}/").content.decode()


def test_a_queryset_update_of_a_guide_path_shows_on_the_landing_page(client, quiz, guide):
    url = f"/en/quizzes/{quiz.slug}/"
    assert "Data parallelism</a>" in client.get(url).content.decode()
    GuidePath.objects.filter(pk=guide.pk).update(title_en="Renamed path")
    assert "Renamed path</a>" in client.get(url).content.decode()


def test_the_importer_moves_the_stamp(client, quiz):
    assert "Question 1 prompt" in _question_page(client, quiz)
    data = quiz_export(quiz=quiz)
    data["questions"][0]["prompt"]["en"] = "Imported prompt"
    quiz_import(data=data)
    assert "Imported prompt" in _question_page(client, quiz)


def test_the_admins_unpublish_action_takes_the_quiz_away(editor_client, client, quiz):
    learner = client.__class__()
    assert learner.get(f"/en/quizzes/{quiz.slug}/").status_code == 200
    response = editor_client.post(
        "/admin/quizzes/quiz/", {"action": "unpublish", "_selected_action": [quiz.pk]}
    )
    assert response.status_code == 302
    assert learner.get(f"/en/quizzes/{quiz.slug}/").status_code == 404


def test_a_data_migration_is_seen_after_migrate(client, quiz):
    """A data migration writes with historical models, which have none of our querysets."""
    assert "Question 1 prompt" in _question_page(client, quiz)
    historical = MigrationLoader(connection).project_state().apps.get_model("quizzes", "Question")
    historical.objects.filter(quiz_id=quiz.pk, position=1).update(prompt_en="Migrated prompt")
    assert "Migrated prompt" not in _question_page(client, quiz)  # Stale until migrate ends.
    call_command("migrate", verbosity=0)
    assert "Migrated prompt" in _question_page(client, quiz)


# What requests share


def test_kept_content_is_bounded(settings, db):
    settings.QUIZ_CONTENT_CACHE_SIZE = 2
    quizzes = [make_quiz(slug=f"quiz-{n}", questions=1) for n in range(3)]
    kept = [content_of(quiz) for quiz in quizzes]
    assert len(snapshots.cache) == 2
    assert content_of(quizzes[2]) is kept[2]  # The newest stays...
    assert content_of(quizzes[0]) is not kept[0]  # ...the least recently used went first.


def test_kept_content_is_read_only(quiz):
    kept = content_of(quiz)
    assert isinstance(kept.questions, tuple) and isinstance(kept.questions[0].choices, tuple)
    with pytest.raises(FrozenInstanceError):
        kept.questions[0].prompt = "Changed by one request for all"
    with pytest.raises(FrozenInstanceError):
        kept.questions[0].choices[0].is_correct = False


def test_a_text_shows_in_the_active_language_or_falls_back(db, guide):
    quiz = make_quiz(questions=1, french=False, guide=guide)
    prompt = content_of(quiz).questions[0].prompt
    with translation.override("fr"):
        assert str(prompt) == "Question 1 prompt"
        assert prompt.lang_attr == ' lang="en"'
    with translation.override("en"):
        assert prompt.lang_attr == ""
