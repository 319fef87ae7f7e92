"""Editing a short-answer question in the admin: its accepted answers in both languages, its
case and accents options, and what is wrong with its answers."""

import pytest

from quizzes.learning.services import answer_record, answers_regrade, attempt_start
from quizzes.models import Answer
from tests.factories import choice_row, content_of, make_quiz, question_form


@pytest.fixture
def question(guide):
    quiz = make_quiz(questions=1, guide=guide, published=False)
    return quiz.questions.get()


def _post(editor_client, question, rows, **fields):
    data = question_form(question, rows, kind="short_answer", **fields)
    return editor_client.post(f"/admin/quizzes/question/{question.pk}/change/", data)


def test_answers_and_options_are_saved(editor_client, question):
    question.choices.all().delete()
    rows = [
        choice_row(1, "*all-reduce*", "*réduction globale*", correct=True),
        choice_row(2, "reduce", "", credit="0.5", feedback_en="Only one worker gets it."),
    ]
    response = _post(editor_client, question, rows, case_sensitive="on", ignore_accents="on")
    assert response.status_code == 302, response.context["errors"]
    question.refresh_from_db()
    assert (question.kind, question.case_sensitive, question.ignore_accents) == (
        "short_answer",
        True,
        True,
    )
    saved = [(c.text_en, c.text_fr, c.is_correct) for c in question.choices.all()]
    assert saved == [("*all-reduce*", "*réduction globale*", True), ("reduce", None, False)]
    assert question.choice_problems() == []
    assert question.type.options.case_sensitive and question.type.options.ignore_accents


@pytest.mark.parametrize(
    ("rows", "says"),
    [
        ([choice_row(1, "reduce", "")], "Mark at least one answer as correct."),
        (
            [choice_row(1, "a", "", correct=True), choice_row(2, " ", "  ")],
            "This field is required.",
        ),
    ],
)
def test_bad_answers_are_refused_and_change_nothing(editor_client, question, rows, says):
    before = list(question.choices.values_list("text_en", flat=True))
    response = _post(editor_client, question, rows)
    assert response.status_code == 200
    assert says in str(response.context["errors"])
    question.refresh_from_db()
    assert question.kind == "single"
    assert list(question.choices.values_list("text_en", flat=True)) == before


@pytest.mark.parametrize("change", ["answer", "case"])
def test_changing_how_answers_match_asks_for_the_regrade_that_matches_them_again(
    editor_client, question, change
):
    question.choices.all().delete()
    rows = [choice_row(1, "all-reduce", "", correct=True), choice_row(2, "*", "")]
    first = {} if change == "answer" else {"case_sensitive": "on"}
    assert _post(editor_client, question, rows, **first).status_code == 302
    question.quiz.is_published = True
    question.quiz.save()
    attempt = attempt_start(quiz=question.quiz, user=None, learner_key="k" * 32)
    content = content_of(question.quiz)
    (shown,) = content.questions
    typed = "AR" if change == "answer" else "All-Reduce"
    answer_record(
        attempt=attempt, quiz=content, question=shown, choices=(shown.choices[1],), response=typed
    )
    assert not Answer.objects.get().is_correct
    ids = list(question.choices.values_list("pk", flat=True))
    rows = [
        choice_row(1, "ar" if change == "answer" else "all-reduce", "", correct=True, id=ids[0]),
        choice_row(2, "*", "", id=ids[1]),
    ]
    response = _post(editor_client, question, rows, initial=2)  # Case sensitive no more.
    assert response.status_code == 302
    page = editor_client.get(response["Location"]).content.decode()
    assert "This question has 1 recorded answer. It keeps the grade it was given" in page
    assert not Answer.objects.get().is_correct
    assert answers_regrade(questions=question.quiz.questions.all()).answers == 1
    assert Answer.objects.get().is_correct  # Case does not count: "AR" fits "ar".
