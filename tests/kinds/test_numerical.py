"""Numerical questions: numbers read as each language writes them, refused with a reason
when they can't be read rightly, matched against values give or take their tolerance."""

from decimal import Decimal
from types import SimpleNamespace

import pytest
from django.utils import translation

from quizzes.interchange.gift import gift_export, gift_parse
from quizzes.interchange.moodle_xml import moodle_xml_export, moodle_xml_parse
from quizzes.kinds.base import EditedChoice
from quizzes.kinds.numerical import (
    NumberError,
    Numerical,
    number_text,
    plain,
    read_number,
    read_quantity,
    unit_problems,
)
from quizzes.snapshots import Text
from quizzes.templatetags.numbers import value_of

NNBSP, NBSP = "\u202f", "\u00a0"


@pytest.mark.parametrize(
    ("text", "language", "number"),
    [
        ("1,5", "fr", "1.5"),
        ("1.5", "fr", "1.5"),
        ("1 024", "fr", "1024"),
        (f"1{NBSP}024", "fr", "1024"),
        (f"1{NNBSP}024", "fr", "1024"),
        (f"1{NNBSP}024{NNBSP}000,5", "fr", "1024000.5"),
        ("1e-3", "fr", "0.001"),
        ("−2,5", "fr", "-2.5"),
        ("1.5", "en", "1.5"),
        ("1,024", "en", "1024"),
        ("1,024,000.25", "en", "1024000.25"),
        ("1 024", "en", "1024"),
        ("1e-3", "en", "0.001"),
        ("1E3", "en", "1000"),
        ("  42 ", "en", "42"),
        (".5", "en", "0.5"),
        ("-0", "en", "0"),
    ],
)
def test_a_number_reads_as_its_language_writes_it(text, language, number):
    assert plain(read_number(text, language)) == number


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "Type a number."),
        ("   ", "Type a number."),
        ("NaN", "is not a number"),
        ("nan", "is not a number"),
        ("inf", "is not a number"),
        ("-Infinity", "is not a number"),
        ("1e999", "too large or too small"),
        ("1e-999", "too large or too small"),
        ("9" * 10_000, "too long"),
        ("1" * 31, "too many digits"),
        ("١٠٢٤", "digits 0 to 9"),  # Arabic-Indic digits.
        ("۱۰۲۴", "digits 0 to 9"),  # Extended Arabic-Indic.
        ("1024 samples", "is not a number"),
        ("0x400", "is not a number"),
        ("1_024", "is not a number"),
        ("1..5", "is not a number"),
    ],
)
def test_what_can_t_be_read_is_refused_with_a_reason(text, language, says):
    with pytest.raises(NumberError, match=says):
        read_number(text, language)


def test_the_reasons_are_in_the_learner_s_language():
    with translation.override("fr"), pytest.raises(NumberError) as refused:
        read_number("NaN", "fr")
    assert "n’est pas un nombre" in str(refused.value)


def test_a_comma_is_never_read_silently_as_another_number_in_english():
    with pytest.raises(NumberError, match="decimal point"):
        read_number("1,5", "en")
    with pytest.raises(NumberError, match="decimal point"):
        read_number("1,0245", "en")


def test_a_point_that_could_group_thousands_in_french_is_refused():
    with pytest.raises(NumberError, match="two ways"):
        read_number("1.024", "fr")
    assert read_number("1.02", "fr") == Decimal("1.02")


@pytest.mark.parametrize(
    ("language", "shown", "half"), [("en", "1,024.5", "0.5"), ("fr", f"1{NBSP}024,5", "0,5")]
)
def test_a_number_shows_as_the_page_s_language_writes_it(language, shown, half):
    with translation.override(language):
        assert number_text("1024.5") == shown
        assert number_text(Decimal("0.500000000000000")) == half  # A tolerance as kept.


def _question(*choices):
    return SimpleNamespace(
        choices=tuple(
            SimpleNamespace(
                pk=pk,
                is_correct=correct,
                tolerance=Decimal(tolerance.removesuffix("%")),
                relative_tolerance=tolerance.endswith("%"),
                credit=Decimal(credit),
                text=Text((("en", text),)),
            )
            for pk, (text, tolerance, correct, *credit) in enumerate(choices, 1)
            for credit in [credit[0] if credit else "0"]
        )
    )


def test_an_answer_matches_the_first_value_it_is_within_the_tolerance_of():
    kind = Numerical()
    question = _question(("3", "0.1", True), ("3", "1", False), ("32", "0", False))
    assert kind.picked(Decimal("3.1"), question.choices) == [1]
    assert kind.picked(Decimal("2.5"), question.choices) == [2]
    assert kind.picked(Decimal("32"), question.choices) == [3]
    assert kind.picked(Decimal("5"), question.choices) == []
    assert kind.grade(question, frozenset({1}), "3.1") == 1
    assert kind.grade(question, frozenset({2}), "2.5") == 0
    assert kind.grade(question, frozenset(), "5") == 0
    assert kind.accepts(question, frozenset({1}), "3.1")
    assert not kind.accepts(question, frozenset({3}), "3.1")  # Not its match.
    assert not kind.accepts(question, frozenset({1}))  # No number.


def test_a_near_miss_earns_its_value_s_credit():
    kind = Numerical()
    question = _question(("1024", "0", True), ("1000", "0", False, "0.5"), ("32", "0", False))
    assert kind.grade(question, frozenset({1}), "1024") == 1
    assert kind.grade(question, frozenset({2}), "1000") == 0.5
    assert kind.grade(question, frozenset({3}), "32") == 0


def test_an_editor_s_values_must_read_and_agree_with_one_correct():
    kind = Numerical()
    assert kind.problems([False, False]) == ["Mark at least one value as correct."]
    good = EditedChoice(texts={"en": "1,024", "fr": "1 024"}, tolerance=Decimal(0))
    assert kind.value_problems([good]) == []
    problems = kind.value_problems(
        [
            EditedChoice(texts={"en": "many", "fr": ""}),
            EditedChoice(texts={"en": "1024", "fr": "1 000"}),
            EditedChoice(texts={"en": "", "fr": ""}),
            EditedChoice(texts={"en": "3"}, tolerance=Decimal(-1)),
        ]
    )
    assert problems == [
        "value 1: many (en): “many” is not a number: write it as 1.5, 1,024 or 1e-3.",
        "value 2: its languages give different numbers.",
        "value 3: write its value, a number.",
        "value 4: its tolerance must be 0 or more.",
    ]


def test_a_star_value_takes_any_other_number_after_the_values_before_it():
    kind = Numerical()
    question = _question(("3", "0.1", True), ("*", "0", False, "0.1"))
    assert kind.picked(Decimal("3"), question.choices) == [1]
    assert kind.picked(Decimal("-1e30"), question.choices) == [2]
    assert kind.grade(question, frozenset({2}), "7") == 0.1
    assert kind.value_problems([EditedChoice(texts={"en": "*", "fr": "*"})]) == []
    assert kind.value_problems([EditedChoice(texts={"en": "*", "fr": "3"})]) == [
        "value 1: * (en): “*” is not a number: write it as 1.5, 1,024 or 1e-3."
    ]


GIFT_WEIGHTS = """::W::When was Grant born?{#
    =1822:0 # Right.
    =%50%1822:2 # Close.
    =%33.333333%1800..1900 # The century.
    =%0%1920 # A known mistake.
    ~# Far off.
}"""


def test_gift_weights_below_100_are_a_near_miss_s_credit_and_write_back_the_same():
    parsed = gift_parse(GIFT_WEIGHTS, language="en")
    assert parsed.problems == []
    (question,) = parsed.quizzes[0]["questions"]
    assert question["choices"] == [
        {"text": {"en": "1822"}, "correct": True, "feedback": {"en": "Right."}},
        {
            "text": {"en": "1822"},
            "correct": False,
            "credit": "0.5",
            "tolerance": "2",
            "feedback": {"en": "Close."},
        },
        {
            "text": {"en": "1850"},
            "correct": False,
            "credit": "0.33333",
            "tolerance": "50",
            "feedback": {"en": "The century."},
        },
        {"text": {"en": "1920"}, "correct": False, "feedback": {"en": "A known mistake."}},
        {"text": {"en": "*"}, "correct": False, "feedback": {"en": "Far off."}},
    ]
    data = {"slug": "w", "title": {"en": "W"}, "questions": [question]}
    for again in (
        gift_parse(gift_export(data, language="en"), language="en"),
        moodle_xml_parse(moodle_xml_export(data, language="en"), language="en"),
    ):
        assert again.problems == []
        assert again.quizzes[0]["questions"][0]["choices"] == question["choices"]


@pytest.mark.parametrize(
    ("answers", "says"),
    [
        ("=%150%3", "the weight “150” is not a percentage from 0 to 100."),
        ("=%-50%3", "the weight “-50” is not a percentage from 0 to 100."),
        ("=%NaN%3", "the weight “NaN” is not a percentage from 0 to 100."),
        ("=%1e999%3", "the weight “1e999” is not a percentage from 0 to 100."),
        ("=3:inf", "the numerical answer “3:inf” is not a number."),
        ("=٣", "the numerical answer “٣” is not a number."),
        ("=" + "9" * 10_000, "the numerical answer “" + "9" * 10_000 + "” is not a number."),
        ("~# Only the others.", "a numerical question needs at least one answer."),
    ],
)
def test_gift_numerical_answers_that_can_t_be_kept_leave_the_question_out(answers, says):
    parsed = gift_parse(f"::N::How many?{{#{answers}}}\n\nFine?{{T}}", language="en")
    assert parsed.problems == [("line 1 (“N”)", says)]
    assert len(parsed.quizzes[0]["questions"]) == 1


def test_moodle_xml_fractions_below_100_are_a_near_miss_s_credit():
    content = """<?xml version="1.0" encoding="UTF-8"?><quiz>
<question type="numerical"><name><text>N</text></name>
<questiontext format="html"><text>How many?</text></questiontext>
<answer fraction="100"><text>1024</text><tolerance>0</tolerance></answer>
<answer fraction="50"><text>1000</text><tolerance>1</tolerance></answer>
<answer fraction="0"><text>*</text><tolerance>0</tolerance>
<feedback format="html"><text>No.</text></feedback></answer>
</question>
<question type="numerical"><name><text>Bad</text></name>
<questiontext format="html"><text>How many?</text></questiontext>
<answer fraction="200"><text>1</text></answer>
</question></quiz>"""
    parsed = moodle_xml_parse(content.encode(), language="en")
    assert parsed.problems == [
        ("question 2 (“Bad”)", "the weight “200” is not a percentage from 0 to 100.")
    ]
    assert parsed.quizzes[0]["questions"][0]["choices"] == [
        {"text": {"en": "1024"}, "correct": True},
        {"text": {"en": "1000"}, "correct": False, "credit": "0.5", "tolerance": "1"},
        {"text": {"en": "*"}, "correct": False, "feedback": {"en": "No."}},
    ]


def test_a_relative_tolerance_is_a_percentage_of_the_value():
    kind = Numerical()
    question = _question(("1024", "1%", True), ("-200", "10%", False))
    assert kind.picked(Decimal("1034.24"), question.choices) == [1]
    assert kind.picked(Decimal("1034.25"), question.choices) == []
    assert kind.picked(Decimal("-180"), question.choices) == [2]
    assert kind.picked(Decimal("-179"), question.choices) == []


MB = SimpleNamespace(name="MB", multiplier=Decimal(1))
GB = SimpleNamespace(name="GB", multiplier=Decimal("0.0009765625"))
UNITS = (MB, GB)


@pytest.mark.parametrize(
    ("text", "language", "number"),
    [
        ("2 GB", "en", "2048"),
        ("2GB", "en", "2048"),
        ("GB 2", "en", "2048"),
        ("1,5 GB", "fr", "1536"),
        ("2 048 MB", "fr", "2048"),
        ("2,048\u00a0MB", "en", "2048"),
        ("2048", "en", "2048"),  # A number alone is in the base unit.
        ("1e-3 GB", "en", "1.024"),
    ],
)
def test_a_number_with_a_unit_reads_in_the_base_unit(text, language, number):
    assert read_quantity(text, language, UNITS) == Decimal(number)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("2 kg", "“kg” is not a unit of this answer: write MB, GB."),
        ("2 Go", "“Go” is not a unit of this answer: write MB, GB."),
        ("2 gb", "“gb” is not a unit of this answer: write MB, GB."),
        ("2 " + "x" * 10_000, "That is too long for a number: 100 characters at most."),
        ("NaN MB", "“NaN” is not a number: write it as 1.5, 1,024 or 1e-3."),
        ("inf GB", "“inf” is not a number: write it as 1.5, 1,024 or 1e-3."),
        ("2 Mo", "“Mo” is not a unit of this answer: write MB, GB."),
        ("1e999 GB", "That number is too large or too small: between 1e-30 and 1e30."),
        ("1e30 GB", "That number is too large or too small: between 1e-30 and 1e30."),
        ("٢ GB", "Write the number with the digits 0 to 9."),
        ("9" * 40 + " MB", "That number has too many digits: 30 at most."),
        ("GB", "Type a number."),
    ],
)
def test_a_unit_that_is_none_of_the_question_s_is_refused_with_a_reason(text, says):
    with pytest.raises(NumberError) as refused:
        read_quantity(text, "en", UNITS)
    assert str(refused.value) == says


def test_a_required_unit_refuses_a_number_alone():
    with pytest.raises(NumberError) as refused:
        read_quantity("2048", "en", UNITS, required=True)
    assert str(refused.value) == "Give the unit too: MB, GB."
    assert read_quantity("2 GB", "en", UNITS, required=True) == 2048
    with translation.override("fr"):
        with pytest.raises(NumberError) as refused:
            read_quantity("2048", "fr", UNITS, required=True)
    assert str(refused.value) == "Donnez aussi l’unité\u00a0: MB, GB."


def test_a_conversion_keeps_what_read_number_reads_again():
    third = (MB, SimpleNamespace(name="x", multiplier=Decimal(3)))
    number = read_quantity("1 x", "en", third)
    assert read_number(plain(number), "en") == number
    assert len(number.as_tuple().digits) == 30


@pytest.mark.parametrize(
    ("units", "says"),
    [
        ([("MB", 1), ("GB", 0)], ["unit 2: its multiplier must be a number above 0."]),
        ([("MB", 1), ("GB", -1)], ["unit 2: its multiplier must be a number above 0."]),
        ([("MB", 1), ("GB", "NaN")], ["unit 2: its multiplier must be a number above 0."]),
        ([("MB", 1), ("GB", "inf")], ["unit 2: its multiplier must be a number above 0."]),
        ([("MB", 2)], ["one unit, the values' unit, has the multiplier 1."]),
        ([("MB", 1), ("MB", 2)], ["unit 2: “MB” is there twice."]),
        ([(" MB", 1)], ["unit 1: “ MB” can't be told from the number: start it with a letter."]),
        ([("2x", 1)], ["unit 1: “2x” can't be told from the number: start it with a letter."]),
        ([("M\0B", 1)], ["unit 1: “M\0B” can't be told from the number: start it with a letter."]),
        ([("", 1)], ["unit 1: write its name, as learners type it (MB)."]),
        ([("B" * 10_000, 1)], ["unit 1: its name is too long: 30 characters at most."]),
        ([("MB", 1), ("GB", "0.0009765625"), ("$", 1)], []),
    ],
)
def test_a_question_s_units_are_checked(units, says):
    assert unit_problems(units) == says


def test_a_value_shows_with_its_base_unit_and_its_tolerance():
    question = SimpleNamespace(units=UNITS, units_left=False)
    absolute, relative = _question(("1024", "0.5", True), ("1024", "1%", True)).choices
    assert value_of(absolute, question) == "1,024\u00a0MB\u00a0±\u00a00.5\u00a0MB"
    assert value_of(relative, question) == "1,024\u00a0MB\u00a0±\u00a01%"
    assert value_of(relative) == "1,024\u00a0±\u00a01%"
    money = SimpleNamespace(units=(SimpleNamespace(name="$", multiplier=1),), units_left=True)
    assert value_of(absolute, money) == "$\u00a01,024\u00a0±\u00a0$\u00a00.5"
    with translation.override("fr"):
        assert value_of(relative, question) == "1\u00a0024\u00a0MB\u00a0±\u00a01\u202f%"


def test_a_value_taken_exactly_shows_alone_in_each_language():
    question = SimpleNamespace(units=UNITS, units_left=False)
    exact, exact_share = _question(("1152", "0", True), ("1152", "0%", True)).choices
    assert value_of(exact) == value_of(exact_share) == "1,152"
    assert value_of(exact, question) == "1,152\u00a0MB"
    with translation.override("fr"):
        assert value_of(exact) == "1\u00a0152"


def test_a_relative_tolerance_is_its_distance_for_moodle_and_its_percentage_here():
    question = {
        "kind": "numerical",
        "prompt": {"en": "How many MB?"},
        "choices": [{"text": {"en": "1400"}, "correct": True, "tolerance": "1%"}],
    }
    data = {"slug": "r", "title": {"en": "R"}, "questions": [question]}
    xml = moodle_xml_export(data, language="en")
    assert b"<tolerance>14</tolerance>" in xml  # What Moodle's numerical grades with.
    again = moodle_xml_parse(xml, language="en").quizzes[0]["questions"][0]
    assert again["choices"] == question["choices"]
    assert "=1400:14" in gift_export(data, language="en")  # GIFT has no percentage.
    # A calculated question's relative tolerance (tolerancetype 1) is a fraction of the value.
    calculated = xml.replace(b"<tolerance>14</tolerance>", b"<tolerance>0.02</tolerance>")
    calculated = calculated.replace(
        b"<tolerancepercent>1</tolerancepercent>", b"<tolerancetype>1</tolerancetype>"
    )
    choice = moodle_xml_parse(calculated, language="en").quizzes[0]["questions"][0]["choices"][0]
    assert choice["tolerance"] == "2%"


@pytest.mark.parametrize(
    ("multiplier", "name", "says"),
    [
        ("0", "m", "unit 1: its multiplier must be a number above 0."),
        ("-1", "m", "unit 1: its multiplier must be a number above 0."),
        ("NaN", "m", "unit 1: its multiplier must be a number above 0."),
        ("abc", "m", "unit 1: its multiplier must be a number above 0."),
        (
            "1e999",
            "m",
            "unit 1: its multiplier has too many digits: 15 at most each side of the point.",
        ),
        ("1", "m" * 10_000, "unit 1: its name is too long: 30 characters at most."),
        ("2", "m", "one unit, the values' unit, has the multiplier 1."),
    ],
)
def test_a_moodle_question_with_units_this_site_cant_keep_is_left_out(multiplier, name, says):
    content = f"""<?xml version="1.0" encoding="UTF-8"?><quiz>
<question type="numerical"><name><text>Bad</text></name>
<questiontext format="html"><text>How far?</text></questiontext>
<answer fraction="100"><text>5</text><tolerance>0</tolerance></answer>
<units><unit><multiplier>{multiplier}</multiplier><unit_name>{name}</unit_name></unit></units>
</question>
<question type="truefalse"><name><text>Fine</text></name>
<questiontext format="html"><text>Fine?</text></questiontext>
<answer fraction="100"><text>true</text></answer><answer fraction="0"><text>false</text></answer>
</question></quiz>"""
    parsed = moodle_xml_parse(content.encode(), language="en")
    assert parsed.problems == [("question 1 (“Bad”)", says)]
    assert len(parsed.quizzes[0]["questions"]) == 1
