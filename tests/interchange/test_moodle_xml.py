"""Moodle XML read into quiz-file dicts and written from them (quizzes/interchange/moodle_xml.py).

No database.
"""

from pathlib import Path

import pytest

from quizzes.interchange.moodle_common import Origin
from quizzes.interchange.moodle_xml import (
    MAX_BYTES,
    MAX_DEPTH,
    MAX_QUESTIONS,
    MAX_TAGS,
    ContentFileError,
    moodle_xml_export,
    moodle_xml_parse,
)
from tests.samples import MOODLE_XML_EVERY_CONSTRUCT as EVERY_CONSTRUCT
from tests.samples import OTHER_PNG, PNG, b64


def choice(text: str, correct: bool = False, feedback: str = "") -> dict:
    item = {"text": {"en": text}, "correct": correct}
    if feedback:
        item["feedback"] = {"en": feedback}
    return item


def test_every_construct_is_read_field_by_field():
    parsed = moodle_xml_parse(EVERY_CONSTRUCT, language="en")
    assert parsed.quizzes == [
        {
            "slug": "networks",
            "title": {"en": "Networks"},
            "category": "$course$/top/Default for Course/Networks",
            "description": {"en": "About **networks**."},
            "questions": [
                {
                    "prompt": {"en": "Which port? ![Port map](images/port%20map.png)"},
                    "key": "Ports",
                    "explanation": {"en": "Port `80`, see RFC."},
                    "choices": [
                        choice("80", True, "Yes: *HTTP*."),
                        choice("21"),
                        choice("443"),
                    ],
                },
                {
                    "prompt": {
                        "en": "Which are *transport* protocols?\n"
                        "![diagram](images/port%20map-2.png)"
                    },
                    "key": "Weights",
                    "kind": "multiple",
                    "partial_credit": True,
                    "choices": [
                        choice("TCP \\*", True),
                        choice("UDP", True),
                        choice("IP", False, "The **network** layer."),
                    ],
                },
            ],
        },
        {
            "slug": "truths",
            "title": {"en": "Truths"},
            "category": "$course$/top/Truths",
            "questions": [
                {
                    "prompt": {"en": "TCP is reliable & ordered"},
                    "key": "TF",
                    "explanation": {"en": "It retransmits."},
                    "kind": "true_false",
                    "choices": [choice("True", True, "Right"), choice("False", False, "Wrong")],
                },
            ],
        },
    ]
    # Two questions' "port map.png" differ: the second one is stored under another name.
    assert parsed.images == {"port map.png": PNG, "port map-2.png": OTHER_PNG}
    assert parsed.origins == [
        [
            Origin("question 1 (“Ports”)", "Ports"),
            Origin("question 3 (“Weights”)", "Weights"),
        ],
        [
            Origin("question 5 (“TF”)", "TF"),
        ],
    ]


def test_types_this_site_lacks_are_refused_one_message_each():
    parsed = moodle_xml_parse(EVERY_CONSTRUCT, language="en")
    refused = "%s (Moodle type “%s”): this site has no such question."
    assert parsed.problems == [
        # Read by the short-answer kind, which finds it has no answer.
        ("question 2 (“SA”)", "a short-answer question needs at least one answer."),
        # Read by the numerical kind, which finds it has no answer.
        ("question 4 (“Num”)", "a numerical question needs at least one answer."),
        (
            "question 6 (“TF2”)",
            "prompt (en): the file “missing.png” is not in the file: Moodle writes each file "
            "a text shows as a <file> of that text.",
        ),
        # Read by the matching kind, which finds it has no pairs.
        ("question 7 (“Match”)", "a matching question needs at least two pairs."),
        ("question 8 (“Essay”)", refused % ("an essay question", "essay")),
        # Read by the gaps kind, which finds no embedded answer in its text.
        (
            "question 9 (“Cloze”)",
            "an embedded answers question without an embedded answer "
            "({1:SHORTANSWER:=answer}…) in its text: it has no gaps.",
        ),
        ("question 10 (“Drag”)", refused % ("a drag and drop into text question", "ddwtos")),
        ("question 11", refused % ("a description without answers", "description")),
    ]


@pytest.mark.parametrize(
    ("moodle_type", "named"),
    [
        ("calculatedmulti", "a calculated multichoice question (Moodle type “calculatedmulti”)"),
        ("gapselect", "a select missing words question (Moodle type “gapselect”)"),
        ("ddmarker", "a drag and drop markers question (Moodle type “ddmarker”)"),
        ("qtype_of_a_plugin", "a question of Moodle type “qtype_of_a_plugin”"),
    ],
)
def test_each_type_is_named_as_moodle_names_it(moodle_type, named):
    xml = f'<quiz><question type="{moodle_type}"><name><text>Q-name</text></name></question></quiz>'
    parsed = moodle_xml_parse(xml, language="en")
    assert parsed.problems == [
        ("question 1 (“Q-name”)", f"{named}: this site has no such question.")
    ]


def test_losses_are_warnings():
    parsed = moodle_xml_parse(EVERY_CONSTRUCT, language="en")
    assert parsed.warnings == [
        ("question 1 (“Ports”)", "not kept: Moodle's correctfeedback."),
        ("question 1 (“Ports”)", "HTML tags dropped, their text kept: span."),
        ("question 3 (“Weights”)", "not kept: Moodle's hint."),
        (
            "question 3 (“Weights”)",
            "the file “unused.png” is shown by no text: not kept.",
        ),
    ]


def test_a_target_quiz_takes_every_category_in_the_language_asked():
    parsed = moodle_xml_parse(EVERY_CONSTRUCT, language="fr", quiz_slug="reseaux")
    assert [quiz["slug"] for quiz in parsed.quizzes] == ["reseaux"]
    questions = parsed.quizzes[0]["questions"]
    assert len(questions) == 3
    assert questions[0]["prompt"] == {"fr": "Which port? ![Port map](images/port%20map.png)"}
    assert questions[2]["choices"] == [
        {"text": {"fr": "Vrai"}, "correct": True, "feedback": {"fr": "Right"}},
        {"text": {"fr": "Faux"}, "correct": False, "feedback": {"fr": "Wrong"}},
    ]


def question_xml(body: str, kind: str = "multichoice") -> bytes:
    return (
        f'<quiz><question type="{kind}"><name><text>Q</text></name>'
        f"<questiontext><text>Q?</text></questiontext>{body}</question></quiz>"
    ).encode()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            '<single>true</single><answer fraction="100"><text>a</text></answer>'
            '<answer fraction="100"><text>b</text></answer>',
            "several answers are marked right, but a single-choice question has exactly one.",
        ),
        (
            '<single>true</single><answer fraction="50"><text>a</text></answer>'
            '<answer fraction="0"><text>b</text></answer>',
            "no answer has full marks (weight 100): none is right.",
        ),
        (
            '<answer fraction="100"><text>a</text></answer>',
            "a multiple-choice question needs at least two answers.",
        ),
        (
            '<answer fraction="lots"><text>a</text></answer>',
            "the answer weight “lots” is not a number.",
        ),
        (
            '<questiontext><file name="../x.png" encoding="base64">AA==</file></questiontext>',
            "the file name “../x.png” is refused.",
        ),
        (
            '<questiontext><file name="x.png" encoding="base64">A</file></questiontext>',
            "the file “x.png” is not valid base64.",
        ),
    ],
)
def test_choices_or_files_that_make_no_question_are_refused(body, message):
    parsed = moodle_xml_parse(question_xml(body), language="en")
    assert parsed.quizzes == []
    assert parsed.problems == [("question 1 (“Q”)", message)]


def test_true_false_needs_its_two_answers():
    body = '<answer fraction="100"><text>yes</text></answer>'
    parsed = moodle_xml_parse(question_xml(body, "truefalse"), language="en")
    assert parsed.problems == [
        (
            "question 1 (“Q”)",
            "a true/false question needs a “true” and a “false” answer.",
        )
    ]


def test_single_choice_with_partial_credit_keeps_each_answer_s_share():
    body = (
        '<answer fraction="100.0000000"><text>a</text></answer>'
        '<answer fraction="33.33333"><text>b</text></answer>'
    )
    parsed = moodle_xml_parse(question_xml(body), language="en")
    question = parsed.quizzes[0]["questions"][0]
    assert question["choices"] == [choice("a", True), {**choice("b"), "credit": "0.33333"}]
    assert parsed.warnings == []
    content = moodle_xml_export(
        {"slug": "q", "title": {"en": "Q"}, "questions": [question]}, language="en", images={}
    )
    assert '<answer fraction="33.333" format="markdown">' in content.decode()
    assert moodle_xml_parse(content, language="en").quizzes[0]["questions"][0] == question


QUIZ = {
    "slug": "networks",
    "title": {"en": "Networks / basics"},
    "description": {"en": "About **networks**."},
    "shuffle_choices": True,
    "questions": [
        {
            "key": "q1",
            "prompt": {"en": "Which port? ![Port map](images/port%20map.png) <b>&amp;</b>"},
            "explanation": {"en": "Port `80`.\n\nSee ![](images/sub/rfc.png)."},
            "choices": [
                {"text": {"en": "80"}, "correct": True, "feedback": {"en": "Yes: *HTTP*."}},
                {"text": {"en": "21"}, "correct": False},
            ],
        },
        {
            "key": "q2",
            "prompt": {"en": "Which are transport protocols?"},
            "kind": "multiple",
            "partial_credit": True,
            "choices": [
                {"text": {"en": "TCP"}, "correct": True},
                {"text": {"en": "UDP"}, "correct": True},
                {"text": {"en": "QUIC"}, "correct": True},
                {"text": {"en": "IP"}, "correct": False, "feedback": {"en": "Network layer."}},
            ],
        },
        {
            "key": "q3",
            "prompt": {"en": "TCP is reliable."},
            "kind": "true_false",
            "choices": [
                {"text": {"en": "True"}, "correct": True, "feedback": {"en": "Right"}},
                {"text": {"en": "False"}, "correct": False},
            ],
        },
        {
            "key": "q4",
            "prompt": {"en": "Yes or no?"},
            "kind": "true_false",
            "choices": [
                {"text": {"en": "Yes"}, "correct": False},
                {"text": {"en": "No"}, "correct": True},
            ],
        },
    ],
}
IMAGES = {"port map.png": PNG, "sub/rfc.png": OTHER_PNG}


def test_export_then_parse_gives_back_the_same_questions_and_images():
    content = moodle_xml_export(QUIZ, language="en", images=IMAGES)
    parsed = moodle_xml_parse(content, language="en", quiz_slug="networks")
    assert parsed.problems == []
    quiz = parsed.quizzes[0]
    assert quiz["title"] == {"en": "Networks / basics"}
    assert quiz["description"] == QUIZ["description"]
    # A true-or-false question whose choices are not True and False is written as single choice.
    expected = QUIZ["questions"][:3] + [{**QUIZ["questions"][3], "kind": "single"}]
    expected[3].pop("kind")
    assert quiz["questions"] == expected
    assert parsed.images == IMAGES
    # Moodle keeps shuffling per question, not per quiz: reading gives no shuffle_choices.
    again = moodle_xml_export({**quiz, "shuffle_choices": True}, language="en", images=IMAGES)
    assert again == moodle_xml_export({**QUIZ, "questions": expected}, language="en", images=IMAGES)


@pytest.mark.parametrize(
    ("shuffleanswers", "keeps"),
    [("false", True), ("0", True), (" FALSE ", True), ("true", False), ("1", False), (None, False)],
)
def test_a_question_that_moodle_does_not_shuffle_keeps_its_choice_order(shuffleanswers, keeps):
    body = (
        '<answer fraction="100"><text>a</text></answer><answer fraction="0"><text>b</text></answer>'
    )
    if shuffleanswers is not None:
        body = f"<shuffleanswers>{shuffleanswers}</shuffleanswers>{body}"
    question = moodle_xml_parse(question_xml(body), language="en").quizzes[0]["questions"][0]
    assert question.get("keep_choice_order", False) is keeps
    if not keeps:
        assert "keep_choice_order" not in question  # The quiz file's default.


def test_each_questions_choice_order_is_written_as_its_shuffleanswers_and_read_back():
    questions = [dict(question) for question in QUIZ["questions"][:2]]
    questions[1]["keep_choice_order"] = True
    for shuffle_choices in (True, False):  # The quiz's own setting is not the questions'.
        quiz = {**QUIZ, "shuffle_choices": shuffle_choices, "questions": questions}
        content = moodle_xml_export(quiz, language="en", images=IMAGES)
        shuffles = [
            part.split("</shuffleanswers>")[0]
            for part in content.decode().split("<shuffleanswers>")[1:]
        ]
        assert shuffles == ["true", "false"]
        parsed = moodle_xml_parse(content, language="en", quiz_slug="networks")
        assert parsed.quizzes[0]["questions"] == questions


def test_moodle_s_partial_credit_is_read_and_written_back_with_the_same_fractions():
    # "Weights": <single>false</single>, TCP and UDP 50 each, IP -100.
    parsed = moodle_xml_parse(EVERY_CONSTRUCT, language="en")
    question = next(q for q in parsed.quizzes[0]["questions"] if q["key"] == "Weights")
    assert question["partial_credit"] is True
    content = moodle_xml_export(
        {"slug": "w", "title": {"en": "W"}, "questions": [question]}, language="en", images={}
    ).decode()
    fractions = [part.split('"')[0] for part in content.split('<answer fraction="')[1:]]
    assert fractions == ["50", "50", "-100"]


def test_export_writes_moodle_xml():
    content = moodle_xml_export(QUIZ, language="en", images=IMAGES).decode()
    assert content.startswith("<?xml version='1.0' encoding='UTF-8'?>\n<quiz>\n")
    assert "<text>$course$/top/Networks // basics</text>" in content
    assert '<question type="truefalse">' in content
    assert "<single>false</single>" in content
    assert '<answer fraction="33.33333" format="markdown">' in content
    assert '<answer fraction="-100" format="markdown">' in content
    assert "<shuffleanswers>true</shuffleanswers>" in content
    assert "![Port map](@@PLUGINFILE@@/port%20map.png) &lt;b&gt;&amp;amp;&lt;/b&gt;" in content
    assert f'<file name="port map.png" path="/" encoding="base64">{b64(PNG)}</file>' in content
    assert f'<file name="rfc.png" path="/sub/" encoding="base64">{b64(OTHER_PNG)}</file>' in content


def refused(content: bytes) -> list[tuple[str, str]]:
    with pytest.raises(ContentFileError) as error:
        moodle_xml_parse(content, language="en")
    return error.value.errors


def test_a_50_mb_file_is_refused_before_reading():
    content = b"<quiz>" + b" " * (50 * 2**20) + b"</quiz>"
    assert refused(content) == [("", "The file is 50.0 MB; at most 20.0 MB can be imported.")]
    assert len(refused(b" " * (MAX_BYTES + 1))) == 1


def test_billion_laughs_is_refused():
    entities = "".join(f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10}">' for n in range(1, 10))
    content = (
        f'<?xml version="1.0"?><!DOCTYPE quiz [<!ENTITY lol0 "lol">{entities}]><quiz>&lol9;</quiz>'
    ).encode()
    assert refused(content) == [
        (
            "",
            "The XML declares the entity lol0: entities are refused, "
            "as they can expand without end or read other files.",
        )
    ]


def test_external_entities_and_documents_are_refused():
    entity = b'<!DOCTYPE quiz [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><quiz>&xxe;</quiz>'
    assert refused(entity)[0][1].startswith("The XML declares the entity xxe:")
    document = b'<!DOCTYPE quiz SYSTEM "http://example.org/quiz.dtd"><quiz/>'
    assert refused(document) == [
        ("", "The XML refers to the outside document http://example.org/quiz.dtd: that is refused.")
    ]


def test_xml_nested_too_deep_is_refused():
    content = b"<quiz>" + b"<a>" * 100_000 + b"</a>" * 100_000 + b"</quiz>"
    assert refused(content) == [("", f"The XML nests elements more than {MAX_DEPTH} deep (<a>).")]


def test_truncated_xml_names_its_line():
    twenty_lines = b"\n".join(EVERY_CONSTRUCT.split(b"\n")[:20])
    assert refused(twenty_lines) == [("line 20", "broken XML: no element found.")]
    assert refused(b"<quiz><question") == [("line 1", "broken XML: unclosed token.")]
    assert refused(b"") == [("line 1", "broken XML: no element found.")]


def test_mixed_encodings_name_the_byte_and_line():
    content = "<quiz>\n<!-- é -->\n".encode() + "<!-- é -->\n</quiz>".encode("latin-1")
    assert refused(content) == [
        ("line 3", "The file is not UTF-8 text (invalid byte at position 25).")
    ]


def test_other_encodings_are_refused():
    content = '<?xml version="1.0" encoding="ISO-8859-1"?><quiz/>'.encode("latin-1")
    assert refused(content) == [
        ("", "The file declares the encoding ISO-8859-1; only UTF-8 is read.")
    ]


def test_other_xml_is_refused():
    assert refused(b"<html><body/></html>") == [
        ("", "This is not Moodle XML: its first element is <html>, not <quiz>.")
    ]


def test_limits_that_keep_reading_fast():
    assert refused(b"<quiz>" + b"<a/>" * MAX_TAGS + b"</quiz>") == [
        ("", f"The file has {MAX_TAGS + 2} tags; at most {MAX_TAGS} are read.")
    ]
    question = '<question type="truefalse"><questiontext><text>Q</text></questiontext></question>'
    content = f"<quiz>{question * (MAX_QUESTIONS + 1)}</quiz>".encode()
    assert refused(content) == [
        ("", "The file holds 5001 questions; at most 5000 are imported at once.")
    ]
    parsed = moodle_xml_parse(
        question_xml(f"<answer><text>{'x' * 100_001}</text></answer>"), language="en"
    )
    assert parsed.problems == [
        ("question 1 (“Q”)", "a text of 100001 characters: at most 100000 are read.")
    ]
    parsed = moodle_xml_parse(question_xml("<answer><text>a</text></answer>" * 101), language="en")
    assert parsed.problems == [("question 1 (“Q”)", "101 answers: at most 100 are read.")]


def test_texts_without_a_format_take_their_questions_one():
    content = (
        b'<quiz><question type="multichoice"><questiontext format="html">'
        b"<text>&lt;p&gt;Q&lt;/p&gt;</text></questiontext>"
        b"<generalfeedback><text>&lt;i&gt;Why&lt;/i&gt;</text></generalfeedback>"
        b'<answer fraction="100"><text>&lt;b&gt;a&lt;/b&gt;</text>'
        b"<feedback><text>a &lt;br&gt;b</text></feedback></answer>"
        b'<answer fraction="0"><text>b</text></answer></question></quiz>'
    )
    parsed = moodle_xml_parse(content, language="en")
    assert parsed.quizzes[0]["questions"] == [
        {
            "prompt": {"en": "Q"},
            "explanation": {"en": "*Why*"},
            "choices": [choice("**a**", True, "a\\\nb"), choice("b")],
        }
    ]


def test_moodles_own_short_answer_example_imports_with_every_answer_and_feedback():
    fixture = Path(__file__).parent / "moodle_fixtures" / "shortanswer.xml"
    parsed = moodle_xml_parse(fixture.read_bytes(), language="en")
    (question,) = parsed.quizzes[0]["questions"]
    assert question == {
        "key": "Short answer question",
        "prompt": {
            "en": "Fill in the gap in this sequence: Alpha, \\_\\_\\_\\_\\_\\_\\_\\_, Gamma."
        },
        "explanation": {"en": "The answer is Beta."},
        "kind": "short_answer",  # <usecase>0</usecase>: not case sensitive.
        "choices": [
            {"text": {"en": "Beta"}, "correct": True, "feedback": {"en": "Well done!"}},
            {"text": {"en": "*"}, "correct": False, "feedback": {"en": "Doh!"}},
        ],
    }
    assert parsed.problems == []
    assert parsed.warnings == [("question 1 (“Short answer question”)", "not kept: Moodle's hint.")]


def test_a_short_answer_is_written_with_usecase_and_read_back_unchanged():
    question = {
        "key": "k",
        "prompt": {"en": "Which?"},
        "kind": "short_answer",
        "case_sensitive": True,
        "choices": [
            {"text": {"en": "a<b & *c*"}, "correct": True},
            {"text": {"en": "x"}, "correct": False, "credit": "0.8", "feedback": {"en": "**No**"}},
        ],
    }
    written = moodle_xml_export(
        {"slug": "q", "title": {"en": "Q"}, "questions": [question]}, language="en"
    )
    assert b"<usecase>1</usecase>" in written and b'<answer fraction="80"' in written
    (read,) = moodle_xml_parse(written, language="en").quizzes[0]["questions"]
    assert read == question


NUMERICAL_UNITS = Path(__file__).parent / "moodle_fixtures" / "numerical_units.xml"


def test_moodles_numerical_questions_with_units_import_with_every_answer_and_unit():
    parsed = moodle_xml_parse(NUMERICAL_UNITS.read_bytes(), language="en")
    assert parsed.problems == []
    metres, money, plain_number = parsed.quizzes[0]["questions"]
    assert metres["kind"] == "numerical"
    assert metres["units"] == [
        {"name": "m", "multiplier": "1"},
        {"name": "cm", "multiplier": "100"},
    ]
    assert metres["units_required"] is True and "units_left" not in metres
    assert metres["choices"] == [
        {"text": {"en": "1.25"}, "correct": True, "feedback": {"en": "Very good."}},
        {
            "text": {"en": "1.25"},
            "correct": False,
            "credit": "0.5",
            "tolerance": "0.05",
            "feedback": {"en": "Vaguely right."},
        },
        {"text": {"en": "*"}, "correct": False, "feedback": {"en": "Completely wrong."}},
    ]
    assert money["units"] == [{"name": "$", "multiplier": "1"}]
    assert money["units_required"] is True and money["units_left"] is True
    assert "units" not in plain_number
    assert plain_number["choices"] == [
        {
            "text": {"en": "42"},
            "correct": True,
            "tolerance": "0.001",
            "feedback": {"en": "Well done!"},
        },
        {
            "text": {"en": "13"},
            "correct": False,
            "tolerance": "1",
            "feedback": {"en": "What were you thinking?!"},
        },
        {"text": {"en": "*"}, "correct": False, "feedback": {"en": "Completely wrong."}},
    ]
    # The unit penalty is not kept: a number without its unit is refused, to be typed again.
    unit_lost = "an answer without its unit is refused here"
    assert [place for place, message in parsed.warnings if message.startswith(unit_lost)] == [
        "question 1 (“Numerical with units”)",
        "question 2 (“Add money”)",
    ]


def test_moodles_numerical_questions_with_units_come_back_from_their_export():
    parsed = moodle_xml_parse(NUMERICAL_UNITS.read_bytes(), language="en")
    again = moodle_xml_parse(moodle_xml_export(parsed.quizzes[0], language="en"), language="en")
    assert again.problems == []
    assert again.quizzes[0]["questions"] == parsed.quizzes[0]["questions"]
