"""A multiple-choice question's partial credit in the admin's question form: saved for a
question answered by several picks, refused with a clear message for the others, and no
value an editor (or a script) posts gives a server error."""

from urllib.parse import quote, urlencode

import pytest

from quizzes.models import Question
from tests.factories import choice_row, make_quiz, question_form


@pytest.fixture
def question(guide):
    quiz = make_quiz(questions=1, guide=guide, published=False)
    return quiz.questions.get()


ROWS = [
    choice_row(1, "TCP", "TCP", correct=True),
    choice_row(2, "UDP", "UDP", correct=True),
    choice_row(3, "IP", "IP"),
]


def _post(editor_client, question, **fields):
    question.choices.all().delete()
    data = question_form(question, ROWS, **fields)
    return editor_client.post(f"/admin/quizzes/question/{question.pk}/change/", data)


def test_the_question_form_offers_partial_credit(editor_client, question):
    page = editor_client.get(f"/admin/quizzes/question/{question.pk}/change/").content.decode()
    assert 'name="partial_credit"' in page
    assert "each correct choice ticked earns its share of the mark" in page


def test_a_multiple_choice_question_saves_its_partial_credit(editor_client, question):
    response = _post(editor_client, question, kind="multiple", partial_credit="on")
    assert response.status_code == 302, response.context["errors"]
    question.refresh_from_db()
    assert question.partial_credit
    response = _post(editor_client, question, kind="multiple")  # Unticked: all or nothing.
    assert response.status_code == 302
    question.refresh_from_db()
    assert not question.partial_credit


@pytest.mark.parametrize("kind", ["single", "true_false", "numerical"])
def test_partial_credit_for_a_question_of_one_pick_is_refused(editor_client, question, kind):
    before = Question.objects.values().get(pk=question.pk)
    response = _post(editor_client, question, kind=kind, partial_credit="on")
    assert response.status_code == 200
    assert "Only a question answered by several picks (multiple choice) gives partial credit." in (
        response.content.decode()
    )
    assert Question.objects.values().get(pk=question.pk) == before


@pytest.mark.parametrize(
    "value",
    ["x" * 10_000, "NaN", "1e999", "-1", "false", "", "%ED%A0%80", "%00", ["on"] * 1000],
    ids=["long", "nan", "huge", "negative", "false", "empty", "surrogate", "nul", "many"],
)
def test_no_value_posted_for_partial_credit_is_a_server_error(editor_client, question, value):
    """A checkbox's value: any text ticks it (a lone surrogate's UTF-8 bytes, which no text
    holds, too: they read as replacement characters), "false" and nothing don't; a NUL or a
    thousand values are refused (400) and change nothing."""
    question.choices.all().delete()
    fields = urlencode(question_form(question, ROWS, kind="multiple"), doseq=True)
    values = value if isinstance(value, list) else [value]
    encoded = "&".join(f"partial_credit={v if '%' in v else quote(v)}" for v in values)
    response = editor_client.post(
        f"/admin/quizzes/question/{question.pk}/change/",
        f"{fields}&{encoded}",
        content_type="application/x-www-form-urlencoded",
    )
    question.refresh_from_db()
    if value == "%00" or isinstance(value, list):
        assert response.status_code == 400
        assert not question.partial_credit
    else:
        assert response.status_code == 302
        assert question.partial_credit is (value not in ("false", ""))
