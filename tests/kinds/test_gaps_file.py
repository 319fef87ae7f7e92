"""Gaps questions as editors and files leave them: every gap of the prompt in every
language, each gap's choices checked by its kind, and the quiz file's `gaps` and `gap`
read, refused with their place, and written back unchanged."""

import copy

import pytest

from quizzes.interchange.errors import QuizFileError
from quizzes.interchange.importing import quiz_import
from quizzes.interchange.quizfile import quiz_export
from quizzes.kinds import EditedChoice
from quizzes.kinds.gaps import MAX_GAPS, gap_numbers, gaps_problems
from quizzes.models import Question
from tests.kinds.test_kinds import EXAMPLES

GAPS = ["numerical", "single", "short_answer"]
PROMPTS = {"en": "[[1]] samples, summed by [[2]] in [[3]].", "fr": "[[1]] exemples, [[2]], [[3]]."}


def _edited(example: dict) -> list[EditedChoice]:
    return [
        EditedChoice(
            texts=choice.get("text", {}),
            tolerance=choice.get("tolerance"),
            correct=choice["correct"],
            gap=choice.get("gap", 0),
        )
        for choice in example["choices"]
    ]


CHOICES = _edited(EXAMPLES["gaps"])


def test_gap_numbers_are_read_in_the_order_they_show():
    assert gap_numbers("[[2]] then [[1]], not [1] nor [[x]] nor [[1234]]") == [2, 1]


def test_a_good_question_has_no_problems():
    assert gaps_problems(GAPS, PROMPTS, CHOICES) == []
    # A language with no prompt falls back to another's: nothing to check in it.
    assert gaps_problems(GAPS, {**PROMPTS, "fr": ""}, CHOICES) == []


@pytest.mark.parametrize(
    ("gaps", "prompts", "says"),
    [
        ([], PROMPTS, "needs the kind of each of its gaps"),
        ("numerical", PROMPTS, "needs the kind of each of its gaps"),
        (["numerical"] * (MAX_GAPS + 1), PROMPTS, f"at most {MAX_GAPS} gaps, not 9"),
        (["numerical", "matching", "single"], PROMPTS, "“matching” is no kind of gap"),
        (["numerical", "x" * 10_000, "single"], PROMPTS, "“" + "x" * 30 + "…” is no kind of gap"),
        ([*GAPS[:2], 3], PROMPTS, "“3” is no kind of gap"),
        (GAPS, {**PROMPTS, "fr": "[[1]] [[2]]"}, "prompt (fr): write each gap once"),
        (GAPS, {**PROMPTS, "en": "[[1]] [[2]] [[3]] [[3]]"}, "prompt (en): write each gap once"),
        (GAPS, {**PROMPTS, "en": "[[1]] [[2]] [[4]]"}, "prompt (en): write each gap once"),
    ],
)
def test_bad_gaps_are_named(gaps, prompts, says):
    problems = gaps_problems(gaps, prompts, CHOICES)
    assert any(says in problem for problem in problems), problems
    assert all(len(problem) < 300 for problem in problems)


def test_each_gap_s_choices_are_checked_by_its_kind():
    numerical, *rest = CHOICES
    bad_number = EditedChoice(texts={"en": "NaN"}, correct=True, gap=1)
    problems = gaps_problems(GAPS, PROMPTS, [bad_number, *rest])
    assert any(problem.startswith("gap 1: value 1:") for problem in problems), problems
    no_right_choice = [c for c in CHOICES if not (c.gap == 2 and c.correct)]
    assert "gap 2: Mark exactly one choice as correct." in gaps_problems(
        GAPS, PROMPTS, no_right_choice
    )
    assert "gap 3 has no choices." in gaps_problems(
        GAPS, PROMPTS, [c for c in CHOICES if c.gap != 3]
    )
    stray = EditedChoice(texts={"en": "x"}, gap=7)
    assert "choice 7: give the number of its gap, 1 to 3." in gaps_problems(
        GAPS, PROMPTS, [*CHOICES, stray]
    )


def _file(question: dict) -> dict:
    return {"slug": "cloze", "title": {"en": "Cloze"}, "questions": [question]}


@pytest.mark.django_db
def test_the_quiz_file_reads_and_writes_gaps_unchanged():
    quiz = quiz_import(data=_file(EXAMPLES["gaps"]))
    question = Question.objects.get(quiz=quiz)
    assert question.gaps == GAPS
    assert list(question.choices.values_list("gap", flat=True)) == [1, 1, 2, 2, 3, 3]
    (written,) = quiz_export(quiz=quiz)["questions"]
    assert written["gaps"] == GAPS
    assert [choice["gap"] for choice in written["choices"]] == [1, 1, 2, 2, 3, 3]
    again = quiz_export(quiz=quiz_import(data=quiz_export(quiz=quiz) | {"title": {"en": "Cloze"}}))
    assert again["questions"] == quiz_export(quiz=quiz)["questions"]


def _broken(change) -> dict:
    question = copy.deepcopy(EXAMPLES["gaps"])
    change(question)
    return _file(question)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda q: q.update(gaps="numerical"), "gaps must be a list of the kinds of the gaps."),
        (lambda q: q.update(gaps=[["numerical"]]), "gaps must be a list of the kinds of the gaps."),
        (lambda q: q.update(gaps=["numerical"] * 10_000), "at most 8 gaps"),
        (lambda q: q.update(kind="single", gaps=GAPS), "only gaps questions have gaps."),
        (lambda q: q["choices"][0].update(gap="one"), "gap must be a whole number."),
        (lambda q: q["choices"][0].update(gap=-1), "choice 1"),
        (lambda q: q["choices"][0].update(gap=10**60), "choice 1"),
        (lambda q: q["prompt"].update(en="no gaps at all"), "prompt (en): write each gap once"),
    ],
)
def test_a_bad_quiz_file_is_refused_with_the_place_and_writes_nothing(change, says):
    with pytest.raises(QuizFileError) as refused:
        quiz_import(data=_broken(change))
    assert says in str(refused.value), str(refused.value)
    assert not Question.objects.exists()
