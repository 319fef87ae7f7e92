"""Editing a numerical question in the admin: its values in both languages, their
tolerances written as the editor's language writes numbers, and what is wrong with them."""

from decimal import Decimal

import pytest
from django.utils.html import escape

from quizzes.models import Choice
from tests.factories import choice_row, inline_data, make_quiz, question_form


@pytest.fixture
def question(guide):
    quiz = make_quiz(questions=1, guide=guide, published=False)
    return quiz.questions.get()


def _post(editor_client, question, rows, lang="en"):
    data = question_form(question, rows, kind="numerical")
    return editor_client.post(
        f"/admin/quizzes/question/{question.pk}/change/", data, HTTP_ACCEPT_LANGUAGE=lang
    )


def test_values_and_tolerances_are_saved(editor_client, question):
    question.choices.all().delete()
    rows = [
        choice_row(1, "1,024", "1 024", correct=True),
        choice_row(2, "3.1", "3,1", tolerance="0.05", feedback_en="Close to pi."),
    ]
    response = _post(editor_client, question, rows)
    assert response.status_code == 302, response.context["errors"]
    saved = [(c.text_en, c.text_fr, c.tolerance, c.is_correct) for c in question.choices.all()]
    assert saved == [
        ("1,024", "1 024", Decimal(0), True),
        ("3.1", "3,1", Decimal("0.05"), False),
    ]
    assert question.choice_problems() == []


def test_a_near_miss_s_credit_is_written_as_the_editor_s_language_writes_it(
    editor_client, question
):
    question.choices.all().delete()
    rows = [
        choice_row(1, "1024", "1 024", correct=True),
        choice_row(2, "1000", "1 000", credit="0,5"),
    ]
    response = _post(editor_client, question, rows, lang="fr")
    assert response.status_code == 302, response.context["errors"]
    assert [c.credit for c in question.choices.all()] == [Decimal(0), Decimal("0.5")]


@pytest.mark.parametrize("credit", ["1,5", "-0,5", "moitié", "9" * 5000, "NaN", "1e999"])
def test_a_credit_outside_0_to_1_is_refused_and_changes_nothing(editor_client, question, credit):
    question.choices.all().delete()
    rows = [choice_row(1, "1024", "1 024", correct=True), choice_row(2, "1000", "", credit=credit)]
    response = _post(editor_client, question, rows, lang="fr")
    assert response.status_code == 200
    assert response.context["errors"]
    assert not Choice.objects.filter(question=question).exists()


@pytest.mark.parametrize(
    ("rows", "says"),
    [
        ([choice_row(1, "1024", "")], "Mark at least one value as correct."),
        ([choice_row(1, "many", "", correct=True)], "“many” is not a number"),
        ([choice_row(1, "1024", "1 000", correct=True)], "its languages give different numbers."),
        ([choice_row(1, "NaN", "", correct=True)], "“NaN” is not a number"),
        ([choice_row(1, "1", "", correct=True, tolerance="-1")], "tolerance must be 0 or more."),
    ],
)
def test_bad_values_are_refused_and_change_nothing(editor_client, question, rows, says):
    question.choices.all().delete()
    response = _post(editor_client, question, rows)
    assert response.status_code == 200
    assert says in response.content.decode()
    assert not Choice.objects.filter(question=question).exists()


def _post_units(editor_client, question, rows, units, lang="en", **fields):
    data = question_form(question, rows, kind="numerical", **fields) | inline_data("units", units)
    return editor_client.post(
        f"/admin/quizzes/question/{question.pk}/change/", data, HTTP_ACCEPT_LANGUAGE=lang
    )


def test_units_and_a_relative_tolerance_are_saved(editor_client, question):
    question.choices.all().delete()
    rows = [
        choice_row(1, "1024", "1 024", correct=True, tolerance="1", relative_tolerance="on"),
        choice_row(2, "1000", "1 000", tolerance="0,5"),
    ]
    units = [
        {"position": 1, "name": "MB", "multiplier": "1"},
        {"position": 2, "name": "GB", "multiplier": "0,0009765625"},
    ]
    response = _post_units(editor_client, question, rows, units, lang="fr", units_required="on")
    assert response.status_code == 302, response.context["errors"]
    question.refresh_from_db()
    assert question.units_required and not question.units_left
    assert [(u.name, u.multiplier) for u in question.units.all()] == [
        ("MB", Decimal(1)),
        ("GB", Decimal("0.0009765625")),
    ]
    saved = [(c.tolerance, c.relative_tolerance) for c in question.choices.all()]
    assert saved == [(Decimal(1), True), (Decimal("0.5"), False)]
    url = f"/admin/quizzes/question/{question.pk}/change/"
    page = editor_client.get(url, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert 'name="units-1-multiplier"' in page and "0,0009765625" in page


@pytest.mark.parametrize(
    ("units", "says"),
    [
        ([{"name": "MB", "multiplier": "0"}], "A unit's multiplier is above 0."),
        ([{"name": "MB", "multiplier": "-1"}], "A unit's multiplier is above 0."),
        ([{"name": "MB", "multiplier": "NaN"}], "Enter a number."),
        ([{"name": "MB", "multiplier": "1e999"}], "Ensure that there are no more than"),
        ([{"name": "MB", "multiplier": "2"}], "one unit, the values' unit, has the multiplier 1."),
        ([{"name": "2MB", "multiplier": "1"}], "start it with a letter."),
        ([{"name": "M" * 10_000, "multiplier": "1"}], "Ensure this value has at most 30"),
        (
            [{"name": "MB", "multiplier": "1"}, {"name": "MB", "multiplier": "0.001"}],
            "Please correct the duplicate data for name.",
        ),
    ],
)
def test_bad_units_are_refused_and_change_nothing(editor_client, question, units, says):
    question.choices.all().delete()
    rows = [choice_row(1, "1024", "", correct=True)]
    units = [unit | {"position": n} for n, unit in enumerate(units, 1)]
    response = _post_units(editor_client, question, rows, units)
    assert response.status_code == 200
    assert escape(says) in response.content.decode(), response.context["errors"]
    assert not question.units.exists() and not question.choices.exists()
