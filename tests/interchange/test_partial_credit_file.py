"""A multiple-choice question's partial credit in the quiz file (`partial_credit: true`):
exported and read back, and every bad value refused with a clear message, writing nothing."""

import pytest

from quizzes.interchange.errors import QuizFileError
from quizzes.interchange.importing import quiz_import
from quizzes.interchange.quizfile import quiz_export
from quizzes.models import Question, Quiz


def _quiz(**question_fields) -> dict:
    question = {
        "kind": "multiple",
        "prompt": {"en": "Which are transport protocols?"},
        "choices": [
            {"text": {"en": "TCP"}, "correct": True},
            {"text": {"en": "UDP"}, "correct": True},
            {"text": {"en": "IP"}, "correct": False},
        ],
    } | question_fields
    return {"slug": "protocols", "title": {"en": "Protocols"}, "questions": [question]}


def test_partial_credit_is_read_and_exported_back(db):
    quiz = quiz_import(data=_quiz(partial_credit=True))
    assert quiz.questions.get().partial_credit
    data = quiz_export(quiz=quiz)
    assert data["questions"][0]["partial_credit"] is True
    quiz_import(data=data)  # Read back: nothing changes.
    assert Question.objects.get(quiz__slug="protocols").partial_credit
    quiz_import(data=_quiz())  # Left out: all or nothing, as before.
    assert not Question.objects.get(quiz__slug="protocols").partial_credit
    assert "partial_credit" not in quiz_export(quiz=quiz)["questions"][0]


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"partial_credit": "yes"}, "question 1: partial_credit must be true / false."),
        ({"partial_credit": 1}, "question 1: partial_credit must be true / false."),
        ({"partial_credit": None}, "question 1: partial_credit must be true / false."),
        ({"partial_credit": ["x"] * 1000}, "question 1: partial_credit must be true / false."),
        ({"partial_credit": "\x00" * 10_000}, "question 1: partial_credit must be true / false."),
        (
            {"partial_credit": True, "kind": "single"},
            "question 1: Only a question answered by several picks (multiple choice) gives "
            "partial credit.",
        ),
    ],
)
def test_a_bad_partial_credit_is_refused_and_writes_nothing(db, fields, says):
    data = _quiz(**fields)
    if fields.get("kind") == "single":
        data["questions"][0]["choices"][1]["correct"] = False
    with pytest.raises(QuizFileError) as refused:
        quiz_import(data=data)
    assert says in refused.value.messages
    assert not Quiz.objects.exists()
