"""Short answers: how a typed answer fits an accepted one, as Moodle's `shortanswer` does."""

from decimal import Decimal

import pytest
from django.http import QueryDict
from django.utils import translation

from quizzes import kinds
from quizzes.kinds.short_answer import MAX_CHARACTERS, fits, normalised
from quizzes.learning.forms import AnswerForm
from quizzes.snapshots import ChoiceContent, QuestionContent, Text


@pytest.mark.parametrize(
    ("response", "pattern", "fit"),
    [
        ("all-reduce", "all-reduce", True),
        ("All-Reduce", "all-reduce", True),  # Case counts only where the question says so.
        ("  all-reduce\t ", "all-reduce", True),
        ("ring  all-reduce", "ring all-reduce", True),  # White space collapsed.
        ("all-reduced", "all-reduce", False),
        ("ring all-reduce", "*all-reduce", True),
        ("all-reduce", "*all-reduce", True),  # A star stands for any run, none too.
        ("an all-reduce in a ring", "*all-reduce*", True),
        ("reduce-all", "*all*reduce*", False),  # The pieces in their order.
        ("a*b", "a\\*b", True),  # \* is a star itself.
        ("axb", "a\\*b", False),
        ("anything at all", "*", True),
        ("ab", "a*b*b", False),  # The pieces may not overlap.
        ("abb", "a*b*b", True),
    ],
)
def test_a_response_fits_an_accepted_answer_as_moodle_reads_its_stars(response, pattern, fit):
    assert fits(response, pattern) is fit


def test_case_counts_only_in_a_case_sensitive_question():
    assert fits("GPU", "gpu") and not fits("GPU", "gpu", case_sensitive=True)
    assert fits("Straße", "STRASSE")  # Case folded, as Unicode folds it.


def test_accents_count_unless_the_question_ignores_them():
    assert not fits("eleve", "élève")
    assert fits("eleve", "élève", ignore_accents=True)
    assert fits("ÉLÈVE", "eleve", ignore_accents=True)


def test_both_sides_are_unicode_normalised():
    decomposed, composed = "e\u0301le\u0300ve", "élève"
    assert fits(decomposed, composed) and fits(composed, decomposed)
    assert normalised(f" {decomposed}\u00a0 x ") == f"{composed} x"


def test_many_stars_against_a_long_answer_take_no_time():
    assert not fits("a" * MAX_CHARACTERS, "*a" * 250 + "b")


def _question(*choices: tuple[dict, bool], **options) -> QuestionContent:
    return QuestionContent(
        pk=1,
        quiz_id=1,
        position=1,
        kind="short_answer",
        keep_choice_order=True,
        prompt=Text((("en", "Which?"),)),
        explanation=Text(()),
        guide_url=Text(()),
        heading=Text(()),
        choices=tuple(
            ChoiceContent(
                pk=pk,
                question_id=1,
                position=pk,
                is_correct=correct,
                tolerance=Decimal(0),
                relative_tolerance=False,
                credit=Decimal("0.5") if not correct else Decimal(0),
                text=Text(tuple(texts.items())),
                feedback=Text(()),
            )
            for pk, (texts, correct) in enumerate(choices, 1)
        ),
        **options,
    )


def _picks(question: QuestionContent, typed: str, language: str = "en") -> list[int]:
    data = QueryDict(mutable=True)
    data["choice"] = typed
    with translation.override(language):
        form = AnswerForm(data, choices=question.choices, kind=question.type)
        assert form.is_valid(), form.errors
        return [choice.pk for choice in form.cleaned_data["choices"]]


def test_the_first_accepted_answer_in_the_attempt_s_language_matches():
    question = _question(
        ({"en": "all-reduce", "fr": "réduction globale"}, True),
        ({"en": "*reduce*"}, False),
        ({"en": "*"}, False),
    )
    assert _picks(question, "All-reduce") == [1]
    assert _picks(question, "reduce-scatter") == [2]
    assert _picks(question, "broadcast") == [3]
    assert _picks(question, "Réduction  globale", "fr") == [1]
    assert _picks(question, "all-reduce", "fr") == [2]  # French has its own answer 1.
    assert _picks(question, "reduce", "fr") == [2]  # Answer 2 falls back to English.
    assert question.type.grade(question, frozenset({2}), "reduce") == 0.5  # Its credit.


def test_a_question_s_options_reach_its_kind():
    texts = ({"en": "GPU"}, True), ({"en": "élève"}, True)
    assert _picks(_question(*texts), "gpu") == [1]
    assert _picks(_question(*texts, case_sensitive=True), "gpu") == []
    assert _picks(_question(*texts), "eleve") == []
    assert _picks(_question(*texts, ignore_accents=True), "eleve") == [2]
    assert kinds.get("short_answer").for_question(_question(*texts)) is kinds.get("short_answer")


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("", "Type your answer."),
        ("   ", "Type your answer."),
        ("x" * 10_000, "too long for an answer: 200 characters at most"),
        ("all\x00reduce", "Null characters are not allowed."),
        ("all\ud800reduce", "a character that can't be read"),
    ],
)
def test_what_a_learner_can_t_type_is_refused_with_a_reason(typed, says):
    question = _question(({"en": "all-reduce"}, True))
    data = QueryDict(mutable=True)
    data["choice"] = typed
    form = AnswerForm(data, choices=question.choices, kind=question.type)
    assert not form.is_valid()
    assert says in form.errors["choice"][0]


def test_a_value_problem_is_an_answer_without_text():
    kind = kinds.get("short_answer")
    assert kind.value_problems([kinds.EditedChoice(texts={"en": " ", "fr": ""})]) == [
        "answer 1: write the answer it accepts."
    ]
    assert kind.problems([False]) == ["Mark at least one answer as correct."]
