"""Calculated questions: variables read and refused with a reason, formulas evaluated by
simpleeval within bounds (never eval), variants drawn the same for the same attempt, and
Moodle's calculatedsimple read and written."""

from decimal import Decimal

import pytest

from quizzes.interchange.errors import QuizFileError
from quizzes.interchange.moodle_xml import moodle_xml_export, moodle_xml_parse
from quizzes.interchange.quizfile import quiz_file_check
from quizzes.kinds.base import EditedChoice
from quizzes.kinds.calculated import (
    CHECKED_ALL,
    Calculated,
    FormulaError,
    draw,
    evaluate,
    parse_variables,
    seed_of,
    substitute,
    variants,
)

NBSP = "\u00a0"
VARIABLES = [
    {"name": "workers", "min": "2", "max": "16", "step": "2"},
    {"name": "local_batch", "values": ["16", "32", "64"]},
    {"name": "steps", "min": "1", "max": "8"},
]


def _values(**values) -> dict[str, Decimal]:
    return {name: Decimal(str(value)) for name, value in values.items()}


@pytest.mark.parametrize(
    ("formula", "values", "result"),
    [
        ("workers * local_batch * steps", _values(workers=8, local_batch=32, steps=4), "1024"),
        ("a / 3", _values(a=10), "3.33333333333333"),  # SIGNIFICANT digits.
        ("round(a / 3, 2)", _values(a=10), "3.33"),
        ("sqrt(a) + abs(-a) + max(a, 2) + min(a, 2)", _values(a=16), "38"),
        ("2 ** 10 + pow(2, 3) + a % 3", _values(a=10), "1033"),
        ("floor(a / 3) + ceil(a / 3)", _values(a=10), "7"),
        ("round(pi() * a, 4)", _values(a=2), "6.2832"),
        ("log(exp(a)) + log10(100)", _values(a=1), "3.00000000000000"),
        ("0.1 + 0.2", {}, "0.3"),  # Decimals: no binary float error.
    ],
)
def test_a_formula_evaluates_over_decimals(formula, values, result):
    assert str(evaluate(formula, values)) == result


@pytest.mark.parametrize(
    ("formula", "says"),
    [
        ("a / (a - 1)", "divides by zero"),
        ("0 / (a - 1)", "not a number"),  # 0/0.
        ("9 ** 9 ** 9", "exponent is over 100"),
        ("10 ** 100", "which no learner types"),
        ("(10 ** 99) ** 99", "not a number"),  # Past the evaluator's bounds.
        ("sqrt(-a)", "not a number"),
        ("log(0)", "not a number"),
        ("__import__('os').system('true')", "numbers, variables"),
        ("__import__('os')", "not a formula"),
        ("a.__class__", "numbers, variables"),
        ("'x' * 10", "numbers, variables"),
        ("[a] * 10", "not a formula"),
        ("a < 2", "not a formula"),
        ("lambda: 1", "not a formula"),
        ("a; 2", "not a formula"),  # Not its first expression, silently.
        ("b = 2", "not a formula"),
        ("b + 1", "“b” is not a variable"),
        ("", "write a formula"),
        ("a + " * 200 + "a", "500 characters at most"),
        ("(" * 240 + "a" + ")" * 240, "not a formula"),  # Python's parser nests 200.
        ("round(a, 1000)", "0 to 30 decimal places"),
    ],
)
def test_a_formula_that_has_no_value_is_refused_with_a_reason(formula, says):
    with pytest.raises(FormulaError, match=says):
        evaluate(formula, _values(a=1))


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ({"name": "a"}, "must be a list"),
        ([{"name": "a", "min": 0, "max": 1_000_000}], "more than 1000 values"),
        ([{"name": "a", "values": list(range(1001))}], "more than 1000 values"),
        ([{"name": f"v{n}", "values": [1]} for n in range(11)], "at most 10 variables"),
        ([{"name": "a", "min": 1, "max": 2}, {"name": "a", "values": [1]}], "declared twice"),
        ([{"name": "2a", "values": [1]}], "letters, digits and _"),
        ([{"name": "a" * 31, "values": [1]}], "letters, digits and _"),
        ([{"name": "sqrt", "values": [1]}], "not a function’s"),
        ([{"name": "a", "values": ["NaN"]}], "is not a number"),
        ([{"name": "a", "values": ["1e999"]}], "too large or too small"),
        ([{"name": "a", "values": ["9" * 10_000]}], "too long"),
        ([{"name": "a", "values": [True]}], "must be numbers"),
        ([{"name": "a", "values": []}], "a list of numbers"),
        ([{"name": "a", "min": 1, "max": 2, "values": [1]}], "not both"),
        ([{"name": "a", "min": 1}], "min and max"),
        ([{"name": "a", "min": 1, "max": 2, "step": 0}], "more than 0"),
        ([{"name": "a", "min": 3, "max": 2}], "at least its min"),
        ([{"name": "a", "min": 1, "max": 2, "unit": "GB"}], "“unit” is not a field"),
        (["a"], "a name with min and max"),
    ],
)
def test_variables_that_can_t_be_drawn_are_refused_with_a_reason(raw, says):
    variables, problems = parse_variables(raw)
    assert variables == () and len(problems) == 1 and says in problems[0]


def test_a_variant_is_the_same_for_the_same_attempt_and_question_and_differs_between_them():
    variables, _problems = parse_variables(VARIABLES)
    seed = seed_of("6f1f0e0c-1d55-4a2b-9a27-6a2f1c1f7a10", 7)
    assert draw(variables, seed) == draw(variables, seed)
    drawn = {tuple(draw(variables, seed_of(f"attempt-{n}", 7)).values()) for n in range(50)}
    assert len(drawn) > 25
    for values in drawn:
        workers, local_batch, steps = values
        assert workers in range(2, 17, 2) and local_batch in (16, 32, 64) and steps in range(1, 9)


def test_every_variant_of_a_small_question_is_checked_a_sample_and_the_bounds_of_a_large_one():
    variables, _problems = parse_variables(VARIABLES)
    assert len(list(variants(variables))) == 8 * 3 * 8 <= CHECKED_ALL
    large, _problems = parse_variables([{"name": "a", "min": 0, "max": 999}] * 1)
    large = large + parse_variables([{"name": "b", "min": 0, "max": 999}])[0]
    checked = list(variants(large))
    assert len(checked) == 102
    assert checked[:2] == [_values(a=0, b=0), _values(a=999, b=999)]


def test_placeholders_show_the_values_as_each_language_writes_numbers():
    values = _values(workers=1024, local_batch=2.5)
    text = "{workers} workers, {local_batch} each, {unknown} and {{workers}}"
    assert substitute(text, values, "en") == "1,024 workers, 2.5 each, {unknown} and {1,024}"
    assert substitute(text, values, "fr").startswith(f"1{NBSP}024 workers, 2,5 each")


def test_a_formula_failing_on_one_variant_of_the_range_is_refused_naming_it():
    kind = Calculated()
    edited = [EditedChoice(texts={"en": "workers / (steps - 4)", "fr": ""})]
    assert kind.variable_problems(VARIABLES, edited) == [
        "formula 1 fails for workers = 2, local_batch = 16, steps = 4: it divides by zero."
    ]


def _quiz_file(question: dict) -> dict:
    return {"slug": "batches", "title": {"en": "Batches"}, "questions": [question]}


def test_the_quiz_file_refuses_a_range_of_a_million_values_and_a_formula_that_fails():
    question = {
        "kind": "calculated",
        "prompt": {"en": "{a}?"},
        "variables": [{"name": "a", "min": 0, "max": 1_000_000}],
        "choices": [{"text": {"en": "1 / a"}, "correct": True}],
    }
    with pytest.raises(QuizFileError, match="more than 1000 values"):
        quiz_file_check(data=_quiz_file(question))
    question["variables"] = [{"name": "a", "min": 0, "max": 10}]
    with pytest.raises(QuizFileError, match="a = 0: it divides by zero"):
        quiz_file_check(data=_quiz_file(question))
    question["kind"] = "numerical"
    with pytest.raises(QuizFileError, match="only calculated questions have variables"):
        quiz_file_check(data=_quiz_file(question))


# Moodle's own "Simple sum" calculatedsimple question (question/type/calculatedsimple/tests/
# helper.php), as Moodle's XML exporter writes a calculatedsimple question: {a} and {b}
# in the text and the formulas, a "*" answer, each dataset with its items.
MOODLE_SUM = b"""<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="calculatedsimple">
    <name><text>Simple sum</text></name>
    <questiontext format="html"><text>What is {a} + {b}?</text></questiontext>
    <generalfeedback format="html"><text>The sum of {a} and {b}.</text></generalfeedback>
    <defaultgrade>1.0000000</defaultgrade>
    <penalty>0.3333333</penalty>
    <hidden>0</hidden>
    <idnumber></idnumber>
    <synchronize>0</synchronize>
    <single>0</single>
    <answernumbering>abc</answernumbering>
    <shuffleanswers>0</shuffleanswers>
    <correctfeedback format="html"><text></text></correctfeedback>
    <partiallycorrectfeedback format="html"><text></text></partiallycorrectfeedback>
    <incorrectfeedback format="html"><text></text></incorrectfeedback>
    <answer fraction="100">
      <text>{a} + {b}</text>
      <tolerance>0</tolerance>
      <tolerancetype>2</tolerancetype>
      <correctanswerformat>1</correctanswerformat>
      <correctanswerlength>2</correctanswerlength>
      <feedback format="html"><text>Very good.</text></feedback>
    </answer>
    <answer fraction="0">
      <text>{a} - {b}</text>
      <tolerance>0</tolerance>
      <tolerancetype>2</tolerancetype>
      <correctanswerformat>1</correctanswerformat>
      <correctanswerlength>2</correctanswerlength>
      <feedback format="html"><text>Add. not subtract!.</text></feedback>
    </answer>
    <answer fraction="0">
      <text>*</text>
      <tolerance>0</tolerance>
      <tolerancetype>2</tolerancetype>
      <correctanswerformat>1</correctanswerformat>
      <correctanswerlength>2</correctanswerlength>
      <feedback format="html"><text>Completely wrong.</text></feedback>
    </answer>
    <unitgradingtype>0</unitgradingtype>
    <unitpenalty>0.1000000</unitpenalty>
    <showunits>3</showunits>
    <unitsleft>0</unitsleft>
    <dataset_definitions>
      <dataset_definition>
        <status><text>private</text></status>
        <name><text>a</text></name>
        <type>calculatedsimple</type>
        <distribution><text>uniform</text></distribution>
        <minimum><text>1</text></minimum>
        <maximum><text>10</text></maximum>
        <decimals><text>0</text></decimals>
        <itemcount>2</itemcount>
        <dataset_items>
          <dataset_item><number>1</number><value>1</value></dataset_item>
          <dataset_item><number>2</number><value>3</value></dataset_item>
        </dataset_items>
        <number_of_items>2</number_of_items>
      </dataset_definition>
      <dataset_definition>
        <status><text>private</text></status>
        <name><text>b</text></name>
        <type>calculatedsimple</type>
        <distribution><text>uniform</text></distribution>
        <minimum><text>1</text></minimum>
        <maximum><text>10</text></maximum>
        <decimals><text>0</text></decimals>
        <itemcount>2</itemcount>
        <dataset_items>
          <dataset_item><number>1</number><value>5</value></dataset_item>
          <dataset_item><number>2</number><value>4</value></dataset_item>
        </dataset_items>
        <number_of_items>2</number_of_items>
      </dataset_definition>
    </dataset_definitions>
  </question>
</quiz>
"""


def test_moodle_s_simple_sum_imports_with_its_formulas_feedback_and_values():
    parsed = moodle_xml_parse(MOODLE_SUM, language="en")
    assert parsed.problems == []
    (question,) = parsed.quizzes[0]["questions"]
    assert question["kind"] == "calculated"
    assert question["prompt"] == {"en": "What is {a} + {b}?"}
    assert question["explanation"] == {"en": "The sum of {a} and {b}."}
    assert question["variables"] == [
        {"name": "a", "values": ["1", "3"]},  # Moodle's items: the values it draws.
        {"name": "b", "values": ["4", "5"]},
    ]
    assert question["choices"] == [
        {"text": {"en": "a + b"}, "correct": True, "feedback": {"en": "Very good."}},
        {"text": {"en": "a - b"}, "correct": False, "feedback": {"en": "Add. not subtract!."}},
    ]
    assert [message for _place, message in parsed.warnings] == [
        "a “*” answer (any other number) is not kept: its feedback is lost."
    ]
    quiz_file_check(data=parsed.quizzes[0] | {"slug": "sum"})  # A good question here.


def test_moodle_s_calculated_of_the_same_shape_is_read_and_a_relative_tolerance_refused():
    calculated = MOODLE_SUM.replace(b'type="calculatedsimple"', b'type="calculated"')
    (question,) = moodle_xml_parse(calculated, language="en").quizzes[0]["questions"]
    assert question["kind"] == "calculated" and len(question["choices"]) == 2
    relative = MOODLE_SUM.replace(b"<tolerancetype>2", b"<tolerancetype>1")
    assert moodle_xml_parse(relative, language="en").problems == [
        (
            "question 1 (“Simple sum”)",
            "a relative or geometric tolerance is not kept: only nominal.",
        )
    ]
    huge = MOODLE_SUM.replace(b"<text>{a} + {b}</text>", b"<text>{a} ** 1000</text>")
    (problem,) = moodle_xml_parse(huge, language="en").problems
    assert "an exponent is over 100." in problem[1]


def test_our_export_writes_moodle_s_shape_and_reads_back_unchanged():
    question = {
        "kind": "calculated",
        "prompt": {"en": "{workers} workers of {local_batch}, {steps} steps?"},
        "variables": VARIABLES,
        "choices": [
            {"text": {"en": "workers * local_batch * steps"}, "correct": True},
            {"text": {"en": "workers * local_batch"}, "correct": False, "tolerance": "0.5"},
        ],
    }
    written = moodle_xml_export(_quiz_file(question), language="en")
    assert b"<text>{workers} * {local_batch} * {steps}</text>" in written
    assert b"<tolerancetype>2</tolerancetype>" in written
    assert written.count(b"<dataset_item>") == 8 + 3 + 8
    (read,) = moodle_xml_parse(written, language="en").quizzes[0]["questions"]
    assert read["variables"] == VARIABLES and read["choices"] == question["choices"]
