"""Ordering questions: graded all or nothing or by adjacent pairs as Moodle's qtype_ordering
grades them, read and written as its Moodle XML, refused past a sane number of items."""

import pytest

from quizzes.interchange.errors import QuizFileError
from quizzes.interchange.gift import gift_export
from quizzes.interchange.moodle_xml import moodle_xml_export, moodle_xml_parse
from quizzes.interchange.quizfile import quiz_file_check
from quizzes.kinds.ordering import MAX_ITEMS, score

# Moodle's own test question (question/type/ordering/tests/helper.php): its six words.
WORDS = ["Modular", "Object", "Oriented", "Dynamic", "Learning", "Environment"]


def _given(*words: str) -> list[int]:
    return [WORDS.index(word) for word in words]


RIGHT = list(range(6))


@pytest.mark.parametrize(
    ("given", "pairs"),
    [
        (WORDS, 1.0),
        (["Environment", "Learning", "Dynamic", "Oriented", "Object", "Modular"], 0.0),
        # Moodle's test: Modular→Object, Object→Oriented, Learning→Environment of 5.
        (["Modular", "Object", "Oriented", "Learning", "Environment", "Dynamic"], 0.6),
        (["Oriented", "Object", "Dynamic", "Learning", "Environment", "Modular"], 0.4),
    ],
)
def test_adjacent_pairs_score_as_moodles_relative_to_the_next_item(given, pairs):
    assert score(RIGHT, _given(*given), "pairs") == pytest.approx(pairs)
    assert score(RIGHT, _given(*given), "all") == (1.0 if given == WORDS else 0.0)


def test_a_response_missing_items_or_with_others_scores_what_it_has_right():
    assert score(RIGHT, [0, 1], "all") == 0.0
    assert score(RIGHT, [0, 1, 99], "pairs") == pytest.approx(0.2)
    assert score(RIGHT, [], "pairs") == 0.0


def _moodle(answers: str, options: str = "") -> bytes:
    return (
        '<quiz><question type="ordering"><name><text>Steps</text></name>'
        '<questiontext format="html"><text>&lt;p&gt;Order the steps.&lt;/p&gt;</text>'
        f"</questiontext>{options}{answers}</question></quiz>"
    ).encode()


def _answers(*texts: str, fractions=None) -> str:
    fractions = fractions or range(1, len(texts) + 1)
    return "".join(
        f'<answer fraction="{fraction}" format="moodle_auto_format"><text>{text}</text></answer>'
        for fraction, text in zip(fractions, texts, strict=True)
    )


def _question(parsed) -> dict:
    assert parsed.problems == []
    (question,) = parsed.quizzes[0]["questions"]
    return question


def test_moodles_ordering_reads_its_items_in_their_order_and_its_grading():
    options = (
        "<layouttype>HORIZONTAL</layouttype><selecttype>ALL</selecttype>"
        "<selectcount>0</selectcount><gradingtype>ALL_OR_NOTHING</gradingtype>"
    )
    answers = _answers("Oriented", "Modular", "Object", fractions=["3.0000000", "1.0", "2"])
    question = _question(moodle_xml_parse(_moodle(answers, options), language="en"))
    assert question["kind"] == "ordering"
    assert [choice["text"]["en"] for choice in question["choices"]] == [
        "Modular",
        "Object",
        "Oriented",
    ]
    assert "grading" not in question  # All or nothing, ours by default.
    relative = options.replace("ALL_OR_NOTHING", "RELATIVE_NEXT_EXCLUDE_LAST")
    question = _question(moodle_xml_parse(_moodle(answers, relative), language="en"))
    assert question["grading"] == "pairs"


def test_what_this_site_does_not_keep_of_moodles_ordering_is_warned_of():
    options = (
        "<selecttype>RANDOM</selecttype><selectcount>3</selectcount>"
        "<gradingtype>LONGEST_ORDERED_SUBSET</gradingtype>"
    )
    parsed = moodle_xml_parse(_moodle(_answers(*WORDS), options), language="en")
    messages = [message for _place, message in parsed.warnings]
    assert "Moodle's grading “LONGEST_ORDERED_SUBSET” is not kept" in messages[0]
    assert messages[1] == "Moodle shows 3 of the items; here every item is shown."
    assert _question(parsed)["grading"] == "pairs"


@pytest.mark.parametrize(
    ("count", "says"),
    [
        (1, "an ordering question needs at least two items."),
        (21, "an ordering question has at most 20 items, not 21."),
        (1000, "1000 answers: at most 100 are read."),
    ],
)
def test_a_moodle_ordering_of_too_few_or_too_many_items_is_left_out(count, says):
    answers = _answers(*(f"Step {n}" for n in range(count)))
    parsed = moodle_xml_parse(_moodle(answers), language="en")
    assert [message for _place, message in parsed.problems] == [says]


def _file(count: int, **question) -> dict:
    items = [{"text": {"en": f"Step {n}"}} for n in range(1, count + 1)]
    question = {"kind": "ordering", "prompt": {"en": "Order them."}, "choices": items, **question}
    return {"slug": "steps", "title": {"en": "Steps"}, "questions": [question]}


def test_the_quiz_file_takes_an_ordering_with_its_grading():
    fields, _guides, questions = quiz_file_check(data=_file(3, grading="pairs"))
    (question,) = questions
    assert question.fields["grading"] == "pairs" and len(question.choices) == 3


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (_file(MAX_ITEMS + 1), "An ordering question has at most 20 items, not 21."),
        (_file(1000), "An ordering question has at most 20 items, not 1000."),
        (_file(3, grading="sometimes"), "grading: Value 'sometimes' is not a valid choice."),
    ],
    ids=["21-items", "1000-items", "bad-grading"],
)
def test_the_quiz_file_refuses_a_bad_ordering_with_a_message(db, data, says):
    with pytest.raises(QuizFileError) as refused:
        quiz_file_check(data=data)
    assert says in str(refused.value)


def test_moodle_xml_writes_the_grading_and_the_items_in_order_and_reads_them_back():
    data = _file(4, grading="pairs")
    content = moodle_xml_export(data, language="en")
    assert b"<gradingtype>RELATIVE_NEXT_EXCLUDE_LAST</gradingtype>" in content
    assert b"<selecttype>ALL</selecttype>" in content
    question = _question(moodle_xml_parse(content, language="en"))
    assert question["grading"] == "pairs"
    assert [choice["text"]["en"] for choice in question["choices"]] == [
        "Step 1",
        "Step 2",
        "Step 3",
        "Step 4",
    ]


def test_gift_leaves_it_out_and_says_so():
    text = gift_export(_file(3), language="en")
    assert (
        "// Left out: “Order them.”, a question of kind “Ordering”, which GIFT can’t hold." in text
    )
    assert "Step 1" not in text


def test_gift_names_it_in_the_files_language():
    data = _file(3)
    data["questions"][0]["prompt"]["fr"] = "Mettez-les dans l’ordre."
    text = gift_export(data, language="fr")
    assert (
        "// Laissée de côté\u00a0: «\u00a0Mettez-les dans l’ordre.\u00a0», une question de type "
        "«\u00a0Mise en ordre\u00a0», que GIFT ne sait pas écrire." in text
    )
