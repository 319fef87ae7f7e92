"""Editing an ordering question in the admin: its items in their right order, its grading,
and a limit to how many items it has."""

import pytest

from quizzes.kinds.ordering import MAX_ITEMS
from quizzes.models import Choice
from tests.factories import answer_order, choice_row, make_quiz, question_form, start


@pytest.fixture
def question(guide):
    quiz = make_quiz(questions=1, guide=guide, published=False)
    question = quiz.questions.get()
    question.choices.all().delete()
    return question


def _post(editor_client, question, rows, lang="en", **fields):
    data = question_form(question, rows, kind="ordering", **fields)
    return editor_client.post(
        f"/admin/quizzes/question/{question.pk}/change/", data, HTTP_ACCEPT_LANGUAGE=lang
    )


def test_items_and_grading_are_saved(editor_client, question):
    rows = [
        choice_row(1, "Compute the gradients", "Calculer les gradients"),
        choice_row(2, "Reduce-scatter", "Reduce-scatter"),
        choice_row(3, "All-gather", "All-gather"),
    ]
    response = _post(editor_client, question, rows, grading="pairs")
    assert response.status_code == 302, response.context["errors"]
    question.refresh_from_db()
    assert question.grading == "pairs"
    assert list(question.choices.values_list("text_en", flat=True)) == [
        "Compute the gradients",
        "Reduce-scatter",
        "All-gather",
    ]
    assert question.choice_problems() == []


@pytest.mark.parametrize(
    ("count", "lang", "says"),
    [
        (1, "en", "An ordering question needs at least two items."),
        (MAX_ITEMS + 1, "en", f"An ordering question has at most {MAX_ITEMS} items, not 21."),
        (MAX_ITEMS + 1, "fr", f"Une question de mise en ordre a au plus {MAX_ITEMS} éléments"),
    ],
)
def test_too_few_or_too_many_items_are_refused_and_change_nothing(
    editor_client, question, count, lang, says
):
    rows = [choice_row(n, f"Step {n}", f"Étape {n}") for n in range(1, count + 1)]
    response = _post(editor_client, question, rows, lang)
    assert response.status_code == 200
    assert says in response.content.decode()
    assert not Choice.objects.filter(question=question).exists()


def test_a_thousand_items_are_refused_without_an_error_page(editor_client, question):
    rows = [choice_row(n, f"Step {n}", "") for n in range(1, 1001)]
    response = _post(editor_client, question, rows)
    assert response.status_code in (200, 400)
    assert not Choice.objects.filter(question=question).exists()


def test_a_new_order_of_an_answered_question_says_how_to_regrade(editor_client, question, client):
    rows = [choice_row(n, f"Step {n}", f"Étape {n}") for n in (1, 2, 3)]
    assert _post(editor_client, question, rows).status_code == 302
    items = list(question.choices.order_by("position"))
    attempt = start(client, question.quiz)
    answer_order(client, attempt, 1, items)
    moved = [  # The first two items trade places.
        choice_row(n, item.text_en, item.text_fr) | {"id": item.pk, "question": question.pk}
        for n, item in zip((2, 1, 3), items, strict=True)
    ]
    data = question_form(question, moved, initial=3, kind="ordering")
    response = editor_client.post(
        f"/admin/quizzes/question/{question.pk}/change/", data, follow=True
    )
    assert "This question has 1 recorded answer." in response.content.decode()
