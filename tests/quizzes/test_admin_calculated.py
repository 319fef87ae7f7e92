"""Editing a calculated question in the admin: its variables and formulas, refused when a
formula fails on a variant or a variable can't be drawn, and its preview of variants."""

import json

import pytest

from quizzes.models import Choice, Question
from tests.factories import CALCULATED_VARIABLES, choice_row, make_quiz, question_form

NBSP = "\u00a0"


@pytest.fixture
def question(guide):
    quiz = make_quiz(questions=1, guide=guide, published=False)
    question = quiz.questions.get()
    question.choices.all().delete()
    return question


def _post(editor_client, question, rows, variables, lang="en", **fields):
    data = question_form(
        question,
        rows,
        kind="calculated",
        variables=json.dumps(variables),
        prompt_en="{workers} workers, a local batch of {local_batch}, {steps} steps?",
        **fields,
    )
    return editor_client.post(
        f"/admin/quizzes/question/{question.pk}/change/", data, HTTP_ACCEPT_LANGUAGE=lang
    )


RIGHT = [
    choice_row(1, "workers * local_batch * steps", "", correct=True),
    choice_row(2, "workers * local_batch", "", feedback_en="Forgot the {steps} steps."),
]


def test_variables_and_formulas_are_saved(editor_client, question):
    response = _post(editor_client, question, RIGHT, CALCULATED_VARIABLES)
    assert response.status_code == 302, response.context["errors"]
    question.refresh_from_db()
    assert question.variables == CALCULATED_VARIABLES
    assert [c.text_en for c in question.choices.all()] == [
        "workers * local_batch * steps",
        "workers * local_batch",
    ]
    assert question.choice_problems() == []


def test_numbers_are_kept_as_plain_decimals(editor_client, question):
    variables = [
        {"name": "workers", "min": 2, "max": 16, "step": 2},
        {"name": "local_batch", "values": [16, 32.5]},
        {"name": "steps", "min": "1", "max": "8"},
    ]
    assert _post(editor_client, question, RIGHT, variables).status_code == 302
    question.refresh_from_db()
    assert question.variables[0] == {"name": "workers", "min": "2", "max": "16", "step": "2"}
    assert question.variables[1] == {"name": "local_batch", "values": ["16", "32.5"]}


@pytest.mark.parametrize(
    ("rows", "variables", "says"),
    [
        (
            [choice_row(1, "workers / (steps - 1)", "", correct=True)],
            CALCULATED_VARIABLES,
            "formula 1 fails for workers = 2, local_batch = 16, steps = 1: it divides by zero.",
        ),
        (
            [choice_row(1, "workers ** 1000", "", correct=True)],
            CALCULATED_VARIABLES,
            "an exponent is over 100.",
        ),
        (
            [choice_row(1, "10 ** 40 * workers", "", correct=True)],
            CALCULATED_VARIABLES,
            "which no learner types.",
        ),
        (
            [choice_row(1, "__import__('os')", "", correct=True)],
            CALCULATED_VARIABLES,
            "is not a formula",
        ),
        (
            [choice_row(1, "workers * gpus", "", correct=True)],
            CALCULATED_VARIABLES,
            "formula 1: “gpus” is not a variable.",
        ),
        (
            [choice_row(1, "workers", "workers * 2", correct=True)],
            CALCULATED_VARIABLES,
            "its languages give different formulas.",
        ),
        (RIGHT, [{"name": "workers", "min": 0, "max": 1_000_000}], "more than 1000 values"),
        (RIGHT, [{"name": "workers", "min": 5, "max": 1}], "its max must be at least its min."),
        (RIGHT, [{"name": "sqrt", "values": [1]}], "not a function’s"),
        (RIGHT, [{"name": "w", "values": ["NaN"]}], "is not a number"),
        (RIGHT, [], "declare at least one variable."),
    ],
)
def test_bad_formulas_and_variables_are_refused_and_change_nothing(
    editor_client, question, rows, variables, says
):
    response = _post(editor_client, question, rows, variables)
    assert response.status_code == 200
    assert says in response.content.decode().replace("&#x27;", "'").replace("&amp;", "&")
    assert not Choice.objects.filter(question=question).exists()
    assert Question.objects.get(pk=question.pk).kind == "single"


def test_a_range_too_large_to_try_whole_is_checked_at_its_bounds(editor_client, question):
    variables = [{"name": "workers", "min": 0, "max": 999}, {"name": "steps", "min": 1, "max": 999}]
    rows = [choice_row(1, "1 / (999 - workers)", "", correct=True)]  # Fails only at 999.
    response = _post(editor_client, question, rows, variables)
    assert "formula 1 fails for workers = 999, steps = 999: it divides by zero." in (
        response.content.decode()
    )


def test_only_a_calculated_question_has_variables(editor_client, question):
    data = question_form(
        question, RIGHT, kind="single", variables=json.dumps([{"name": "a", "values": [1]}])
    )
    response = editor_client.post(f"/admin/quizzes/question/{question.pk}/change/", data)
    assert "Only calculated questions have variables." in response.content.decode()


def test_the_preview_shows_several_variants_with_each_formula_s_value(editor_client, question):
    response = _post(editor_client, question, RIGHT, CALCULATED_VARIABLES, lang="fr", _preview="1")
    page = response.content.decode()
    assert "5 variantes des valeurs" in page
    assert "<code>workers</code>&nbsp;=&nbsp;2, <code>local_batch</code>&nbsp;=&nbsp;16" in page
    assert "<td>32</td><td>32</td>" in page  # Both formulas at the first variant (steps = 1).
    assert "<td>64</td><td>32</td>" in page  # The second: steps = 2.
    assert "2 workers, a local batch of 16, 1 steps?" in page  # The texts with its values.
    assert not Choice.objects.filter(question=question).exists()


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("[" * 100_000 + "]" * 100_000, "The variables are 10000 characters at most."),
        # Too deep for json.loads before Python 3.12; read, and not a variable, after.
        (
            "[" * 4_000 + "]" * 4_000,
            ("Enter a valid JSON.", "variable 1: write it as a name with min and max"),
        ),
        ("[{", "Enter a valid JSON."),
        ("1" + "0" * 5000, "Enter a valid JSON."),  # Past Python's 4,300 digits of an int.
    ],
)
def test_variables_that_can_t_be_read_are_refused_and_previewed_as_none(
    editor_client, question, typed, says
):
    for preview in ({}, {"_preview": "1"}):
        data = question_form(question, RIGHT, kind="calculated", variables=typed, **preview)
        response = editor_client.post(f"/admin/quizzes/question/{question.pk}/change/", data)
        assert response.status_code == 200
        page = response.content.decode()
        assert any(said in page for said in ((says,) if isinstance(says, str) else says))
    assert Question.objects.get(pk=question.pk).kind == "single"
