"""GIFT read into quiz-file dicts and written from them (quizzes/interchange/gift.py).
No database."""

from pathlib import Path

import pytest

from quizzes.interchange.gift import (
    MAX_BYTES,
    MAX_LINES,
    MAX_QUESTIONS,
    ContentFileError,
    gift_export,
    gift_parse,
)
from quizzes.interchange.moodle_common import Origin
from tests.samples import GIFT_EVERY_CONSTRUCT as EVERY_CONSTRUCT


def choice(text: str, correct: bool = False, feedback: str = "") -> dict:
    item = {"text": {"en": text}, "correct": correct}
    if feedback:
        item["feedback"] = {"en": feedback}
    return item


def test_every_construct_is_read_field_by_field():
    parsed = gift_parse(EVERY_CONSTRUCT, language="en")
    (networks,) = [quiz for quiz in parsed.quizzes if quiz["slug"] == "networks"]
    assert [quiz["slug"] for quiz in parsed.quizzes] == ["networks", "maths"]
    assert networks["title"] == {"en": "Networks"}
    questions = networks["questions"]
    assert questions[0] == {
        "key": "Ports",
        "prompt": {"en": "Which port does HTTP use?"},
        "explanation": {"en": "Port 443 is HTTPS."},
        "choices": [
            choice("80", True, "Right: port 80."),
            choice("21", False, "That is FTP."),
            choice("443"),
        ],
    }
    assert questions[1] == {
        "key": "Weights",
        "prompt": {"en": "Which are transport protocols?"},
        "kind": "multiple",
        "partial_credit": True,  # 50/50/-100: each correct pick earns half, IP takes it all.
        "choices": [
            choice("TCP", True, "Yes."),
            choice("UDP", True),
            choice("IP", False, "No: that is the network layer."),
        ],
    }
    assert questions[2] == {
        "prompt": {"en": "TCP is reliable."},
        "kind": "true_false",
        "choices": [choice("True", True), choice("False", False)],
    }
    assert questions[3]["choices"] == [choice("True", False), choice("False", True)]
    # {FALSE#wrong#right}: a learner who picks True is wrong.
    assert questions[4] == {
        "key": "TF feedback",
        "prompt": {"en": "IP is a transport protocol."},
        "explanation": {"en": "IP is the network layer."},
        "kind": "true_false",
        "choices": [choice("True", False, "No, it is not."), choice("False", True, "Right.")],
    }
    assert questions[5]["choices"] == [choice("True", True), choice("False", False)]
    assert questions[6] == {
        "prompt": {"en": "Escapes: ~ = # { } and a\nnew line, and a backslash \\\\ here."},
        "choices": [choice("right = yes", True), choice("wrong")],
    }
    assert questions[7] == {
        "prompt": {"en": "Is **this** Markdown?"},
        "choices": [choice("Yes, *kept* as is", True), choice("No")],
    }
    assert questions[8]["prompt"] == {
        "en": "Is **this** *HTML* with `code`, a [link](https://example.org/)\\\n"
        "and [a picture](https://example.org/a.png)?\n\n"
        "- one\n- two\n\n1. first\n\n```\nx = 1\ny = 2\n```\n\nRed text."
    }
    assert questions[9]["prompt"] == {"en": "Is 2 \\* 3 = 6 in \\[plain\\] text_like_this?"}
    assert questions[10]["prompt"] == {"en": "\\# Not a heading, and \\<b>not bold\\</b>"}
    assert questions[11] == {
        "key": "Back",
        "prompt": {"en": "Back in Networks?"},
        "choices": [choice("Yes", True), choice("No")],
    }
    assert len(questions) == 12
    assert parsed.origins == [
        [
            Origin("line 4 (“Ports”)", "Ports"),
            Origin("line 11 (“Weights”)", "Weights"),
            Origin("line 18", ""),
            Origin("line 20", ""),
            Origin("line 22 (“TF feedback”)", "TF feedback"),
            Origin("line 24", ""),
            Origin("line 26", ""),
            Origin("line 28", ""),
            Origin("line 30", ""),
            Origin("line 36", ""),
            Origin("line 38", ""),
            Origin("line 59 (“Back”)", "Back"),
        ],
        [
            Origin("line 42", ""),
            Origin("line 44", ""),
            Origin("line 46", ""),
            Origin("line 50", ""),
        ],
    ]
    assert parsed.images == {}
    assert parsed.quizzes[1]["questions"][0] == {
        "prompt": {"en": "What is 2 + 2?"},
        "kind": "numerical",
        "choices": [choice("4", True)],
    }
    # Short answer: each answer accepted, weighted 100 unless said.
    assert parsed.quizzes[1]["questions"][1] == {
        "prompt": {"en": "Who is buried in Grant's tomb?"},
        "kind": "short_answer",
        "choices": [choice("Grant", True), choice("Ulysses S. Grant", True)],
    }
    # Matching: each pair a left item and its right item.
    assert parsed.quizzes[1]["questions"][2] == {
        "prompt": {"en": "Match them."},
        "kind": "matching",
        "choices": [
            {"text": {"en": "cat"}, "match": {"en": "cat food"}, "correct": False},
            {"text": {"en": "dog"}, "match": {"en": "dog food"}, "correct": False},
        ],
    }
    # Missing-word multiple choice is single choice, the blank where the answers were.
    assert parsed.quizzes[1]["questions"][3:] == [
        {
            "prompt": {"en": "Grant is \\_\\_\\_\\_\\_ in Grant's tomb."},
            "choices": [choice("buried"), choice("entombed", True), choice("living")],
        }
    ]


def test_kinds_this_site_lacks_are_refused_one_message_each_with_their_line():
    parsed = gift_parse(EVERY_CONSTRUCT, language="en")
    assert parsed.problems == [
        ("line 48", "an essay question: this site has no such question."),
        ("line 52", "a description without answers: this site has no such question."),
        ("line 55", "this { is not closed by a } before the next blank line."),
    ]


def test_losses_are_warnings():
    parsed = gift_parse(EVERY_CONSTRUCT, language="en")
    # "Weights" shares 100 % between its right answers, -100 % its wrong one: partial credit,
    # scored as here.
    assert parsed.warnings == [("line 30", "HTML tags dropped, their text kept: font, img, span.")]


def test_a_target_quiz_takes_every_category():
    parsed = gift_parse(EVERY_CONSTRUCT, language="fr", quiz_slug="my-quiz")
    assert [quiz["slug"] for quiz in parsed.quizzes] == ["my-quiz"]
    quiz = parsed.quizzes[0]
    assert len(quiz["questions"]) == 16
    assert quiz["questions"][0]["prompt"] == {"fr": "Which port does HTTP use?"}
    # The texts Moodle's true/false lacks are the file's language.
    assert quiz["questions"][2]["choices"] == [
        {"text": {"fr": "Vrai"}, "correct": True},
        {"text": {"fr": "Faux"}, "correct": False},
    ]


def test_categories_make_quizzes_with_unique_slugs():
    text = (
        "$CATEGORY: $course$/top/A/Same\n\nOne?{T}\n\n"
        "$CATEGORY: $course$/top/B/Same\n\nTwo?{T}\n\n"
        "$CATEGORY: $course$/top/A/Same\n\nThree?{F}\n\n"
        "$CATEGORY: top/Slash//ed name\nFour?{T}\n"
    )
    parsed = gift_parse(text, language="en")
    assert [(quiz["slug"], quiz["title"]) for quiz in parsed.quizzes] == [
        ("same", {"en": "Same"}),
        ("same-2", {"en": "Same"}),
        ("slashed-name", {"en": "Slash/ed name"}),
    ]
    assert [len(quiz["questions"]) for quiz in parsed.quizzes] == [2, 1, 1]


def test_questions_before_any_category_go_to_a_default_quiz():
    parsed = gift_parse("One?{T}", language="en")
    assert parsed.quizzes == [
        {
            "slug": "imported-questions",
            "title": {"en": "Imported questions"},
            "questions": [
                {
                    "prompt": {"en": "One?"},
                    "kind": "true_false",
                    "choices": [choice("True", True), choice("False")],
                }
            ],
        }
    ]


def test_single_choice_with_partial_credit_keeps_each_answer_s_share():
    parsed = gift_parse("Q?{=a ~%50%b ~c ~%-25%d}", language="en")
    question = parsed.quizzes[0]["questions"][0]
    assert question["choices"] == [
        choice("a", True),
        {**choice("b"), "credit": "0.5"},
        choice("c"),
        choice("d"),
    ]
    assert parsed.warnings == [
        ("line 1", "a penalty is lost: the answers weighted -25% count as wrong (0).")
    ]
    text = gift_export({"slug": "q", "title": {"en": "Q"}, "questions": [question]}, language="en")
    assert "\t~%50%b\n" in text
    assert (
        gift_parse(text, language="en").quizzes[0]["questions"][0]["choices"]
        == (question["choices"])
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Q?{=a =b ~c}", "several answers are marked right, but a single-choice question"),
        ("Q?{~%-50%a ~b}", "no answer has a weight above 0: none is right."),
        ("Q?{~a}", "a multiple-choice question needs at least two answers."),
        ("Q? } {=a ~b}", "a } closes no {."),
    ],
)
def test_choices_that_make_no_question_are_refused(text, message):
    parsed = gift_parse(text, language="en")
    assert parsed.quizzes == []
    assert len(parsed.problems) == 1
    assert parsed.problems[0][0] == "line 1"
    assert parsed.problems[0][1].startswith(message)


MOODLE_DOCS_EXAMPLES = """// true/false
::Q1:: 1+1=2 {T}

// multiple choice with specified feedback for right and wrong answers
::Q2:: What's between orange and green in the spectrum?
{ =yellow # right; good! ~red # wrong, it's yellow ~blue # wrong, it's yellow }

// fill-in-the-blank
::Q3:: Two plus {=two =2} equals four.

// matching
::Q4:: Which animal eats which food? { =cat -> cat food =dog -> dog food }

// math range question
::Q5:: What is a number from 1 to 5? {#3:2}

// math range specified with interval end points
::Q6:: What is a number from 1 to 5? {#1..5}
// translated on import to the same as Q5, but unavailable from Moodle question interface

// multiple numeric answers with partial credit and feedback
::Q7:: When was Ulysses S. Grant born? {#
         =1822:0      # Correct! Full credit.
         =%50%1822:2  # He was born in 1822. Half credit for being close.
}

// essay
::Q8:: How are you? {}

Who's buried in Grant's tomb?{~Grant ~Jefferson =no one}

::Grants tomb::Who is buried in Grant's tomb in New York City? {
=Grant
~No one
#Was true for 12 years, but Grant's remains were buried in the tomb in 1897
~Napoleon
#He was buried in France
}

What two people are entombed in Grant's tomb? {
   ~%-100%No one
   ~%50%Grant
   ~%50%Grant's wife
   ~%-100%Grant's father
}

Grant is buried in Grant's tomb.{F}

Which answer equals 5? {
~ \\= 2 + 2
= \\= 2 + 3
~ \\= 2 + 4
}

::Jesus' hometown::Jesus Christ was from {
~Jerusalem#This was an important city, but the wrong answer.
~%25%Bethlehem#He was born here, but not raised here.
~%50%Galilee#You need to be more specific.
=Nazareth#Yes! That's right!
}.
"""


def test_moodle_documented_examples():
    parsed = gift_parse(MOODLE_DOCS_EXAMPLES, language="en")
    questions = parsed.quizzes[0]["questions"]
    assert [origin.name for origin in parsed.origins[0]] == [
        "Q1",
        "Q2",
        "Q3",
        "Q4",
        "Q5",
        "Q6",
        "Q7",
        "",
        "Grants tomb",
        "",
        "",
        "",
        "Jesus' hometown",
    ]
    assert questions[0] == {
        "key": "Q1",
        "prompt": {"en": "1+1=2"},
        "kind": "true_false",
        "choices": [choice("True", True), choice("False")],
    }
    assert questions[1]["choices"] == [
        choice("yellow", True, "right; good!"),
        choice("red", False, "wrong, it's yellow"),
        choice("blue", False, "wrong, it's yellow"),
    ]
    # Matching: each left item with its right item.
    assert questions.pop(3) == {
        "key": "Q4",
        "prompt": {"en": "Which animal eats which food?"},
        "kind": "matching",
        "choices": [
            {"text": {"en": "cat"}, "match": {"en": "cat food"}, "correct": False},
            {"text": {"en": "dog"}, "match": {"en": "dog food"}, "correct": False},
        ],
    }
    # Fill in the blank: a short answer, missing word.
    assert questions[2] == {
        "key": "Q3",
        "prompt": {"en": "Two plus \\_\\_\\_\\_\\_ equals four."},
        "kind": "short_answer",
        "choices": [choice("two", True), choice("2", True)],
    }
    # Numerical: a value give or take its tolerance, a range as its middle give or take half
    # of it, a weight below 100 % a near miss's credit.
    assert questions[3] == {
        "key": "Q5",
        "prompt": {"en": "What is a number from 1 to 5?"},
        "kind": "numerical",
        "choices": [{**choice("3", True), "tolerance": "2"}],
    }
    assert questions[4]["choices"] == [{**choice("3", True), "tolerance": "2"}]
    assert questions[5]["choices"] == [
        choice("1822", True, "Correct! Full credit."),
        {
            **choice("1822", False, "He was born in 1822. Half credit for being close."),
            "credit": "0.5",
            "tolerance": "2",
        },
    ]
    questions = questions[:2] + questions[6:]
    assert questions[2]["choices"] == [choice("Grant"), choice("Jefferson"), choice("no one", True)]
    assert questions[3]["choices"] == [
        choice("Grant", True),
        choice(
            "No one",
            False,
            "Was true for 12 years, but Grant's remains were buried in the tomb in 1897",
        ),
        choice("Napoleon", False, "He was buried in France"),
    ]
    assert questions[4]["kind"] == "multiple"
    assert [item["correct"] for item in questions[4]["choices"]] == [False, True, True, False]
    assert questions[5]["choices"] == [choice("True"), choice("False", True)]
    assert questions[6]["choices"] == [
        choice("= 2 + 2"),
        choice("= 2 + 3", True),
        choice("= 2 + 4"),
    ]
    # Types are told apart as Moodle's importer does, missing word or not.
    assert parsed.problems == [
        ("line 28 (“Q8”)", "an essay question: this site has no such question.")
    ]
    # Missing word, as Moodle reads it: the blank where the answers were.
    assert questions[7]["prompt"] == {"en": "Jesus Christ was from \\_\\_\\_\\_\\_."}
    assert [item["correct"] for item in questions[7]["choices"]] == [False, False, False, True]
    assert [item.get("credit") for item in questions[7]["choices"]] == [None, "0.25", "0.5", None]
    assert parsed.warnings == []


QUIZ = {
    "slug": "data-parallelism-quiz",
    "title": {"en": "Data parallelism: a quiz", "fr": "Parallélisme des données"},
    "questions": [
        {
            "prompt": {"en": "What does **each** GPU hold? {braces} ~tilde =equals #hash"},
            "explanation": {"en": "A full copy.\n\nSee the guide: https://example.org/a#b"},
            "choices": [
                {"text": {"en": "A full copy"}, "correct": True, "feedback": {"en": "Yes: all."}},
                {"text": {"en": "[html] a slice"}, "correct": False},
                {"text": {"en": "%50% of it"}, "correct": False, "feedback": {"en": "[no]"}},
                {"text": {"en": "A back\\slash\\\\"}, "correct": False},
            ],
        },
        {
            "prompt": {"en": "Which are true?"},
            "kind": "multiple",
            "partial_credit": True,
            "choices": [
                {"text": {"en": "One"}, "correct": True},
                {"text": {"en": "Two"}, "correct": True},
                {"text": {"en": "Three"}, "correct": True},
                {"text": {"en": "Four"}, "correct": False, "feedback": {"en": "Not four."}},
            ],
        },
        {
            "prompt": {"en": "True?"},
            "kind": "true_false",
            "explanation": {"en": "Because."},
            "choices": [
                {"text": {"en": "True"}, "correct": False, "feedback": {"en": "No."}},
                {"text": {"en": "False"}, "correct": True},
            ],
        },
        {
            "prompt": {"en": "False?"},
            "kind": "true_false",
            "choices": [
                {"text": {"en": "True"}, "correct": True, "feedback": {"en": "Yes."}},
                {"text": {"en": "False"}, "correct": False, "feedback": {"en": "Wrong."}},
            ],
        },
    ],
}


def test_export_then_parse_gives_back_the_same_questions():
    text = gift_export(QUIZ, language="en")
    parsed = gift_parse(text, language="en", quiz_slug=QUIZ["slug"])
    assert parsed.problems == []
    assert parsed.quizzes[0]["questions"] == QUIZ["questions"]
    assert parsed.quizzes[0]["title"] == {"en": "Data parallelism: a quiz"}
    again = gift_export(parsed.quizzes[0], language="en")
    assert again == text


def _multiple(correct: list[bool], **fields) -> dict:
    choices = [{"text": {"en": f"C{n}"}, "correct": right} for n, right in enumerate(correct)]
    return {"prompt": {"en": "Which?"}, "kind": "multiple", **fields, "choices": choices}


def test_partial_credit_is_written_as_moodle_s_shares_and_read_back():
    question = _multiple([True, True, False, False], partial_credit=True)
    text = gift_export({**QUIZ, "questions": [question]}, language="en")
    assert "\t~%50%C0\n\t~%50%C1\n\t~%-50%C2\n\t~%-50%C3\n" in text
    parsed = gift_parse(text, language="en", quiz_slug=QUIZ["slug"])
    assert (parsed.quizzes[0]["questions"], parsed.warnings) == ([question], [])


def test_all_or_nothing_reads_back_so_unless_moodle_s_weights_give_partial_credit():
    # Each wrong choice takes all the marks away: Moodle's nearest to all-or-nothing, which
    # with two wrong choices is no partial credit's weights, read back as written.
    question = _multiple([True, True, False, False])
    text = gift_export({**QUIZ, "questions": [question]}, language="en")
    assert "\t~%50%C0\n\t~%50%C1\n\t~%-100%C2\n\t~%-100%C3\n" in text
    parsed = gift_parse(text, language="en", quiz_slug=QUIZ["slug"])
    assert parsed.quizzes[0]["questions"] == [question]
    # With one wrong choice the weights are partial credit's (50/50/-100), which Moodle
    # scores as such: read back, the question gives partial credit.
    question = _multiple([True, True, False])
    text = gift_export({**QUIZ, "questions": [question]}, language="en")
    parsed = gift_parse(text, language="en", quiz_slug=QUIZ["slug"])
    assert parsed.quizzes[0]["questions"] == [{**question, "partial_credit": True}]


def test_other_weights_give_partial_credit_by_equal_shares_with_a_warning():
    text = "::Q::Which?{~%60%A ~%40%B ~%0%C}"
    parsed = gift_parse(text, language="en", quiz_slug="q")
    question = parsed.quizzes[0]["questions"][0]
    assert question["partial_credit"] is True
    assert [choice["correct"] for choice in question["choices"]] == [True, True, False]
    assert parsed.warnings == [
        (
            "line 1 (“Q”)",
            "the weights 60%, 40%, 0% are read as partial credit by equal shares: each "
            "answer weighted above 0 is a correct choice worth its share, and each other "
            "answer picked takes its share away.",
        )
    ]


def test_export_writes_gift_as_moodle_does():
    text = gift_export(QUIZ, language="en")
    assert text.startswith("$CATEGORY: $course$/top/Data parallelism\\: a quiz\n\n")
    assert "[markdown]True?{FALSE#No.####Because.}" in text
    assert "[markdown]False?{TRUE#Wrong.#Yes.}" in text
    assert "\t~%33.33333%One\n" in text
    assert "\t~%-100%Four#Not four.\n" in text
    assert "\t~%0%%50% of it#[markdown][no]\n" in text


def test_export_in_another_language_takes_its_texts():
    quiz = {
        "slug": "q",
        "title": {"en": "Q", "fr": "Q fr"},
        "questions": [
            {
                "prompt": {"en": "Yes?", "fr": "Oui ?"},
                "kind": "true_false",
                "choices": [
                    {"text": {"en": "True", "fr": "Vrai"}, "correct": True},
                    {"text": {"en": "False", "fr": "Faux"}, "correct": False},
                ],
            }
        ],
    }
    text = gift_export(quiz, language="fr")
    assert text == "$CATEGORY: $course$/top/Q fr\n\n[markdown]Oui ?{TRUE}\n"
    parsed = gift_parse(text, language="fr", quiz_slug="q")
    assert parsed.quizzes[0]["questions"] == [
        {
            "prompt": {"fr": "Oui ?"},
            "kind": "true_false",
            "choices": [
                {"text": {"fr": "Vrai"}, "correct": True},
                {"text": {"fr": "Faux"}, "correct": False},
            ],
        }
    ]


def test_too_big_is_refused_before_reading():
    with pytest.raises(ContentFileError) as error:
        gift_parse("Q?{T}\n\n" * (50 * 2**20 // 7), language="en")
    assert error.value.errors == [("", "The file is 50.0 MB; at most 5.0 MB can be imported.")]
    with pytest.raises(ContentFileError):
        gift_parse(b"x" * (MAX_BYTES + 1), language="en")


def test_not_utf8_names_the_byte_and_line():
    content = "Q?{=é ~b}\n\n".encode() + "R?{=é ~b}".encode("latin-1")
    with pytest.raises(ContentFileError) as error:
        gift_parse(content, language="en")
    assert error.value.errors == [
        ("line 3", "The file is not UTF-8 text (invalid byte at position 17).")
    ]


def test_utf16_and_binary_are_refused():
    with pytest.raises(ContentFileError, match="UTF-16"):
        gift_parse("Q?{T}".encode("utf-16"), language="en")
    with pytest.raises(ContentFileError, match="binary"):
        gift_parse(b"Q?{T}\x00", language="en")


def test_utf8_with_a_byte_order_mark_is_read():
    parsed = gift_parse("\ufeffQ?{T}".encode(), language="en")
    assert parsed.quizzes[0]["questions"][0]["prompt"] == {"en": "Q?"}


def test_an_unclosed_brace_names_its_line_and_the_rest_is_read():
    parsed = gift_parse("One?{T}\n\n::Two::\nTwo?\n{=a\n~b\n\nThree?{F}", language="en")
    assert parsed.problems == [
        ("line 5 (“Two”)", "this { is not closed by a } before the next blank line.")
    ]
    prompts = [question["prompt"]["en"] for question in parsed.quizzes[0]["questions"]]
    assert prompts == ["One?", "Three?"]


def test_unknown_language_is_refused():
    with pytest.raises(ContentFileError, match="Unknown language de"):
        gift_parse("Q?{T}", language="de")


def test_limits_that_keep_reading_fast():
    with pytest.raises(ContentFileError) as error:
        gift_parse("x\n" * MAX_LINES, language="en")
    assert error.value.errors == [
        ("", f"The file has {MAX_LINES + 1} lines; at most {MAX_LINES} are read.")
    ]
    with pytest.raises(ContentFileError) as error:
        gift_parse("$CATEGORY: a\n\nQ?{T}\n\n" * (MAX_QUESTIONS + 1), language="en")
    assert error.value.errors == [
        ("", "The file holds 5001 questions; at most 5000 are imported at once.")
    ]
    parsed = gift_parse("Long?{T}\n\n" + "x" * 99_998 + "{T}", language="en")
    assert parsed.problems == [("line 3", "a text of 100001 characters: at most 100000 are read.")]
    parsed = gift_parse("Many?{=a" + " ~b" * 100 + "}", language="en")
    assert parsed.problems == [("line 1", "101 answers: at most 100 are read.")]


def test_html_that_never_closes_its_tags_is_read_as_text():
    parsed = gift_parse("[html]" + "<a " * 30_000 + "<b>x</b>{T}", language="en")
    assert parsed.quizzes[0]["questions"][0]["prompt"]["en"].endswith("\\<a \\<a **x**")


def test_windows_and_old_mac_line_ends_are_read():
    parsed = gift_parse(b"One?{T}\r\n\r\nTwo?\r{F}\r", language="en")
    assert [q["prompt"] for q in parsed.quizzes[0]["questions"]] == [
        {"en": "One?"},
        {"en": "Two?"},
    ]
    assert parsed.origins[0][1].place == "line 3"


def test_a_refused_question_has_no_warnings():
    parsed = gift_parse("[html]<span>Essay</span>{}", language="en")
    assert parsed.problems == [("line 1", "an essay question: this site has no such question.")]
    assert parsed.warnings == []


def test_moodles_own_gift_file_brings_its_short_answer_with_every_answer_and_feedback():
    fixture = Path(__file__).parent / "moodle_fixtures" / "questions.gift.txt"
    parsed = gift_parse(fixture.read_bytes(), language="en")
    (question,) = [
        question
        for quiz in parsed.quizzes
        for question in quiz["questions"]
        if question.get("key") == "Shortanswer"
    ]
    assert question == {
        "key": "Shortanswer",
        "prompt": {"en": "Which is the best animal?"},
        "kind": "short_answer",
        "choices": [
            choice("Frog", True, "Good!"),
            {
                "text": {"en": "Cat"},
                "correct": False,
                "credit": "0.5",
                "feedback": {"en": "What is it with Moodlers and cats?"},
            },
            choice("*", False, "Completely wrong"),
        ],
    }
    assert not [place for place, _message in parsed.problems if "Shortanswer" in place]


def test_a_short_answer_is_written_and_read_back_with_its_credit_stars_and_escapes():
    question = {
        "key": "SA",
        "prompt": {"en": "Name it."},
        "kind": "short_answer",
        "case_sensitive": True,
        "choices": [
            {"text": {"en": "a = b: {x} ~ #1 \\* *"}, "correct": True},
            {"text": {"en": "*scatter*"}, "correct": False, "credit": "0.25"},
            {"text": {"en": "*"}, "correct": False, "feedback": {"en": "No: *that*."}},
        ],
    }
    written = gift_export(
        {"slug": "q", "title": {"en": "Q"}, "questions": [question]}, language="en"
    )
    assert "=%25%*scatter*" in written
    (read,) = gift_parse(written, language="en").quizzes[0]["questions"]
    # GIFT has no place for case sensitivity: Moodle XML's <usecase> has.
    assert read == {key: value for key, value in question.items() if key != "case_sensitive"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Q?{=%50%a}", "no answer has full marks (weight 100): none is right."),
        ("Q?{=a =%150%b}", "the answer weight “150” is not between 0 and 100."),
        ("Q?{=a = #x}", "a short answer is empty: write the answer it accepts."),
    ],
)
def test_short_answers_that_make_no_question_are_refused(text, message):
    parsed = gift_parse(text, language="en")
    assert parsed.quizzes == [] and parsed.problems == [("line 1", message)]
