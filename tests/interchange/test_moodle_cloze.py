"""Moodle's embedded answers (cloze, qtype_multianswer) as gaps questions: Moodle XML's
`cloze` and `multianswer` read, every gap with its answers, weights, tolerances and
feedback (quizzes/kinds/cloze.py, quizzes/kinds/gaps.py), and written back."""

import time
from dataclasses import replace
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation

from quizzes.interchange.exporting import quizzes_export
from quizzes.interchange.importing import import_apply, import_plan
from quizzes.interchange.moodle_xml import moodle_xml_export, moodle_xml_parse
from quizzes.kinds.gaps import MAX_GAPS
from quizzes.models import ContentImage, Question, Quiz
from tests.factories import answer_gaps, make_gaps, make_quiz, question_url, start
from tests.samples import PNG, b64

FIXTURES = Path(__file__).parent / "moodle_fixtures"
IMPORT_URL = "/admin/quizzes/quiz/import/"
CONFIRM_URL = "/admin/quizzes/quiz/import/confirm/"


def cloze(text: str, *, text_format: str = "html", name: str = "Q", kind: str = "cloze") -> bytes:
    return (
        f'<quiz><question type="{kind}"><name><text>{name}</text></name>'
        f'<questiontext format="{text_format}"><text><![CDATA[{text}]]></text></questiontext>'
        "</question></quiz>"
    ).encode()


def read(text: str, **options) -> dict:
    parsed = moodle_xml_parse(cloze(text, **options), language="en")
    assert parsed.problems == []
    (question,) = parsed.quizzes[0]["questions"]
    return question


def problems(text: str, **options) -> list[tuple[str, str]]:
    parsed = moodle_xml_parse(cloze(text, **options), language="en")
    assert parsed.quizzes == []
    return parsed.problems


def warnings(text: str) -> list[str]:
    parsed = moodle_xml_parse(cloze(text), language="en")
    assert parsed.problems == []
    return [warning for _place, warning in parsed.warnings]


def gap_choice(gap: int, text: str, correct: bool = False, feedback: str = "", **more) -> dict:
    item = {"gap": gap, "text": {"en": text}, "correct": correct, **more}
    if feedback:
        item["feedback"] = {"en": feedback}
    return item


def test_moodles_own_cloze_with_images_comes_with_every_gap_and_image():
    """question/format/xml/tests/fixtures/multianswer.xml: four select boxes, a short answer
    whose feedback holds line breaks, and images in its text and general feedback."""
    parsed = moodle_xml_parse((FIXTURES / "multianswer.xml").read_bytes(), language="en")
    assert (parsed.problems, parsed.warnings) == ([], [])
    assert sorted(parsed.images) == ["arizona_2.png", "california-state-flag.png", "moodle.png"]
    (question,) = parsed.quizzes[0]["questions"]
    assert question["prompt"] == {
        "en": "Match the following cities with the correct state,\n\n"
        "California ![California flag](images/california-state-flag.png) or Arizona "
        "![Arizona flag](images/arizona_2.png)\\\n"
        "\\* San Francisco: [[1]]\\\n"
        "\\* Tucson: [[2]]\\\n"
        "\\* Los Angeles: [[3]]\\\n"
        "\\* Phoenix: [[4]]\\\n"
        "The capital of France is [[5]]."
    }
    assert question["explanation"] == {
        "en": "This is a Moodle question ![Moodle logo](images/moodle.png)"
    }
    assert question["kind"] == "gaps"
    assert question["gaps"] == ["single", "single", "single", "single", "short_answer"]
    assert question["keep_choice_order"] is True  # MULTICHOICE: Moodle doesn't shuffle it.
    assert question["choices"] == [
        gap_choice(1, "California", True, "OK"),
        gap_choice(1, "Arizona", False, "Wrong"),
        gap_choice(2, "California", False, "Wrong"),
        gap_choice(2, "Arizona", True, "OK"),
        gap_choice(3, "California", True, "OK"),
        gap_choice(3, "Arizona", False, "Wrong"),
        gap_choice(4, "California", False, "Wrong"),
        gap_choice(4, "Arizona", True, "OK"),
        gap_choice(5, "Paris", True, "Congratulations!"),
        gap_choice(
            5,
            "Marseille",
            False,
            "No, that is the second largest city in France (after\\\nParis).",
            credit="0.5",
        ),
        gap_choice(5, "*", False, "Wrong answer. The capital of France is Paris, of course."),
    ]


@pytest.mark.django_db
def test_moodles_own_cloze_is_stored_answered_and_its_export_reads_back_unchanged(client):
    plan = import_plan(
        content=(FIXTURES / "multianswer.xml").read_bytes(), file_format="moodle-xml"
    )
    assert (plan.errors, plan.problems, plan.warnings) == ((), (), ())
    import_apply(plan=plan)
    question = Question.objects.get()
    assert question.kind == "gaps"
    assert question.gaps == ["single", "single", "single", "single", "short_answer"]
    assert [(c.gap, c.text_en, c.is_correct, str(c.credit)) for c in question.choices.all()][
        -3:
    ] == [
        (5, "Paris", True, "0.00000"),
        (5, "Marseille", False, "0.50000"),
        (5, "*", False, "0.00000"),
    ]
    assert ContentImage.objects.count() == 3
    Quiz.objects.update(is_published=True)
    attempt = start(client, question.quiz)
    page = client.get(question_url(attempt, 1)).content.decode()
    assert page.count('<select class="gap-input" name="choice"') == 4
    assert (
        'The capital of France is <span class="gap-slot"><input type="text" '
        'class="gap-input gap-text"'
    ) in page
    assert "[[" not in page
    choices = list(question.choices.order_by("position"))
    right = [choices[0].pk, choices[3].pk, choices[4].pk, choices[7].pk, "marseille"]
    answer_gaps(client, attempt, 1, right)
    assert str(attempt.answers.get().credit) == "0.90000"  # Marseille: half of one gap of 5.
    export = quizzes_export(quizzes=[question.quiz], file_format="moodle-xml", language="en")
    assert "{1:MULTICHOICE:=California#OK~Arizona#Wrong}" in export.content.decode()
    again = import_plan(
        content=export.content, file_format="moodle-xml", quiz_slug=question.quiz.slug
    )
    assert (again.problems, again.warnings, again.writes) == ((), (), ())


def test_moodles_xml_format_test_question_is_read_with_its_gaps():
    """question/format/xml/tests/xmlformat_test.php, test_import_multianswer."""
    content = (FIXTURES / "multianswer_xmlformat.xml").read_bytes()
    parsed = moodle_xml_parse(content, language="en")
    assert parsed.problems == []
    assert parsed.warnings == [("question 1 (“Simple multianswer”)", "not kept: Moodle's hint.")]
    (question,) = parsed.quizzes[0]["questions"]
    assert question == {
        "key": "Simple multianswer",
        "kind": "gaps",
        "prompt": {
            "en": 'Complete this opening line of verse: "The [[1]] and the [[2]] went to sea".'
        },
        "explanation": {
            "en": 'General feedback: It\'s from "The Owl and the Pussy-cat" by Lear: '
            '"The owl and the pussycat went to sea".'
        },
        "gaps": ["short_answer", "single"],
        "keep_choice_order": True,
        "choices": [
            gap_choice(1, "Dog", False, "Wrong, silly!"),
            gap_choice(1, "Owl", True, "Well done!"),
            gap_choice(1, "*", False, "Wrong answer"),
            gap_choice(2, "Bow-wow", False, "You seem to have a dog obsessions!"),
            gap_choice(2, "Wiggly worm", False, "Now you are just being ridiculous!"),
            gap_choice(2, "Pussy-cat", True, "Well done!"),
        ],
    }


def test_moodles_broken_cloze_questions_are_each_left_out_saying_why():
    """question/format/xml/tests/fixtures/broken_cloze_questions.xml, which Moodle refuses
    question by question too."""
    content = (FIXTURES / "broken_cloze_questions.xml").read_bytes()
    parsed = moodle_xml_parse(content, language="en")
    no_gaps = (
        "an embedded answers question without an embedded answer "
        "({1:SHORTANSWER:=answer}…) in its text: it has no gaps."
    )
    assert parsed.quizzes == []
    assert parsed.problems == [
        ("question 1 (“Multianswer question without subquestions”)", no_gaps),
        ("question 2 (“Multichoice subquestion without choices”)", no_gaps),
        (
            "question 3 (“Multichoice subquestion with only one choice”)",
            "gap 1: a multiple-choice question needs at least two answers.",
        ),
        (
            "question 4 (“Multichoice subquestion with no completely correct answer”)",
            "gap 1: no answer has full marks (weight 100): none is right.",
        ),
        (
            "question 5 (“Numerical subquestion with buggy answer”)",
            "gap 1: the numerical answer “zero” is not a number.",
        ),
    ]


def test_numerical_gaps_keep_their_tolerances_weights_and_feedback():
    question = read(
        "Gravity: {2:NUMERICAL:=9.81:0.01#Right~%50%9.8:0.5#Close~*#No}; zero: {2:NM:=0:0}; "
        "comma: {2:NM:=23,8:0,1}."
    )
    assert question["gaps"] == ["numerical", "numerical", "numerical"]
    assert question["prompt"] == {"en": "Gravity: [[1]]; zero: [[2]]; comma: [[3]]."}
    assert question["choices"] == [
        gap_choice(1, "9.81", True, "Right", tolerance="0.01"),
        gap_choice(1, "9.8", False, "Close", tolerance="0.5", credit="0.5"),
        gap_choice(1, "*", False, "No"),
        gap_choice(2, "0", True),
        gap_choice(3, "23.8", True, tolerance="0.1"),
    ]


@pytest.mark.parametrize(
    ("written", "gaps", "options"),
    [
        ("MULTICHOICE", ["single"], {"keep_choice_order": True}),
        ("MC", ["single"], {"keep_choice_order": True}),
        ("MULTICHOICE_V", ["single"], {"keep_choice_order": True}),
        ("MCV", ["single"], {"keep_choice_order": True}),
        ("MULTICHOICE_H", ["single"], {"keep_choice_order": True}),
        ("MCH", ["single"], {"keep_choice_order": True}),
        ("MULTICHOICE_S", ["single"], {}),
        ("MCS", ["single"], {}),
        ("MULTICHOICE_VS", ["single"], {}),
        ("MCVS", ["single"], {}),
        ("MULTICHOICE_HS", ["single"], {}),
        ("MCHS", ["single"], {}),
        ("SHORTANSWER", ["short_answer"], {}),
        ("SA", ["short_answer"], {}),
        ("MW", ["short_answer"], {}),
        ("SHORTANSWER_C", ["short_answer"], {"case_sensitive": True}),
        ("SAC", ["short_answer"], {"case_sensitive": True}),
        ("MWC", ["short_answer"], {"case_sensitive": True}),
        ("NUMERICAL", ["numerical"], {}),
        ("NM", ["numerical"], {}),
    ],
)
def test_each_type_moodle_writes_is_a_gap_of_its_kind(written, gaps, options):
    question = read(f"It is {{1:{written}:=42#Yes~43#No}}.")
    assert question["gaps"] == gaps
    assert {
        key: question[key] for key in ("keep_choice_order", "case_sensitive") if key in question
    } == options
    assert question["choices"] == [
        gap_choice(1, "42", True, "Yes"),
        gap_choice(1, "43", False, "No"),
    ]


def test_both_xml_types_are_read():
    assert read("A {1:SA:=b}", kind="multianswer")["gaps"] == ["short_answer"]
    assert read("A {1:SA:=b}", kind="cloze")["gaps"] == ["short_answer"]


def test_escaped_characters_are_themselves():
    question = read(r"{1:SHORTANSWER:=a\}b\#c\~d\/e\"f\\g#It is \} \~ \# \\~%50%C\#}")
    assert question["choices"] == [
        gap_choice(1, 'a}b#c~d/e"f\\g', True, "It is } ~ # \\\\"),
        gap_choice(1, "C#", False, credit="0.5"),
    ]


def test_characters_of_markdown_and_of_the_syntax_are_not_mangled():
    question = read(
        "<p>2 * 3 = {1:MC:=<b>6</b>#<i>Yes</i>, 2 * 3~%50%5 = *#Close, \\~ # {\\}}; "
        "C# {2} {1:SA:=C\\#~=C sharp} [[9]]</p>"
    )
    assert question["prompt"] == {"en": "2 \\* 3 = [[1]]; C# {2} [[2]] \\[\\[9\\]\\]"}
    assert question["choices"] == [
        gap_choice(1, "**6**", True, "*Yes*, 2 \\* 3"),
        gap_choice(1, "5 = \\*", False, "Close, ~ # {}", credit="0.5"),
        gap_choice(2, "C#", True),
        gap_choice(2, "C sharp", True),
    ]
    assert read("Markdown *kept* {1:SA:=a*b*c}", text_format="markdown")["prompt"] == {
        "en": "Markdown *kept* [[1]]"
    }
    assert read("Plain *escaped* {1:SA:=x}", text_format="plain_text")["prompt"] == {
        "en": "Plain \\*escaped\\* [[1]]"
    }


def test_a_gap_right_before_brackets_stays_a_gap():
    text = "{1:SA:=5}(cm) and {1:SA:=6}[m], [a [b]](https://example.org/)"
    assert read(text, text_format="markdown")["prompt"] == {
        "en": "[[1]]\\(cm) and [[2]][m], [a [b]](https://example.org/)"
    }


def test_entities_are_text_in_answers_and_a_hash_after_one_starts_no_feedback():
    question = read("{1:MC:=O&#39;Neil#Yes~Rock &amp; roll}; {1:SA:=R&amp;D}")
    assert question["choices"] == [
        gap_choice(1, "O'Neil", True, "Yes"),
        gap_choice(1, "Rock & roll"),
        gap_choice(2, "R&D", True),
    ]


def test_what_is_lost_is_a_warning():
    assert warnings("{1:SA:=a} {2:SA:=b} {:SA:=c} {01:SA:=d}") == [
        "the gaps are weighted 1, 2, 1, 1: here each gap earns an equal share."
    ]
    assert warnings("{1:SAC:=a} {1:SA:=b}") == [
        "some short-answer gaps are case-sensitive and others not: here case counts in none "
        "of them."
    ]
    assert warnings("{1:MC:=a~%-50%b}") == [
        "gap 1: a penalty is lost: the answers weighted -50% count as wrong (0)."
    ]
    assert warnings("{2:SA:=a} {2:MCS:=b~c} {2:NM:=1}") == []


def test_answers_beside_the_markers_are_not_kept_saying_so():
    xml = (
        '<quiz><question type="multianswer"><name><text>Q</text></name>'
        "<questiontext><text>It is {1:SA:=this}.</text></questiontext>"
        '<answer fraction="100"><text>that</text></answer>'
        "<subquestion><text>Other</text></subquestion></question></quiz>"
    )
    parsed = moodle_xml_parse(xml.encode(), language="en")
    assert parsed.quizzes[0]["questions"][0]["choices"] == [gap_choice(1, "this", True)]
    assert parsed.warnings == [
        (
            "question 1 (“Q”)",
            "not kept: its <answer> and <subquestion> elements: an embedded answers question's "
            "gaps are the markers in its text, as Moodle writes them.",
        )
    ]


def test_a_multiple_response_gap_leaves_its_question_out():
    """qtype_multianswer's test question "multiple" (tests/helper.php)."""
    text = (
        "Please select the fruits {1:MULTIRESPONSE:=Apple#Good~%-50%Burger~%-50%Hot dog#Not "
        "a fruit~%-50%Pizza~=Orange#Correct~=Banana} and vegetables {1:MULTIRESPONSE:=Raddish"
        "#Good~%-50%Chocolate~%-50%Biscuit#Not a vegetable~%-50%Cheese~=Carrot#Correct}"
    )
    assert problems(text) == [
        ("question 1 (“Q”)", "gap 1: “MULTIRESPONSE” takes several answers: a gap here takes one.")
    ]
    for written in ("MR", "MRH", "MRS", "MRHS", "MULTIRESPONSE_H"):
        message = f"gap 2: “{written}” takes several answers: a gap here takes one."
        assert problems(f"{{1:SA:=a}} {{1:{written}:=a~b}}") == [("question 1 (“Q”)", message)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "No gap.",
            "an embedded answers question without an embedded answer "
            "({1:SHORTANSWER:=answer}…) in its text: it has no gaps.",
        ),
        (
            " ".join(["{1:SA:=a}"] * (MAX_GAPS + 1)),
            f"{MAX_GAPS + 1} embedded answers: a gaps question has at most {MAX_GAPS}.",
        ),
        (
            "{1:REGEXP:=a}",
            "gap 1: Moodle has no embedded answer of type “REGEXP” (a plugin's?): "
            "it can't be read.",
        ),
        (
            "{1:SA:=a} and {1:SA:=Berlin#Good",
            "gap 2 (“{1:SA:=Berlin#Good”) is not closed: end it with }.",
        ),
        ("{1:SA:=a~", "gap 1 (“{1:SA:=a~”) is not closed: end it with }."),
        ("{1:SA:", "gap 1 (“{1:SA:”) is not closed: end it with }."),
        ("{1:SA:=a~~b}", "gap 1 (“{1:SA:=a~~b}”) has an empty answer."),
        ("{1:SA:%50%}", "gap 1 (“{1:SA:%50%}”) has an empty answer."),
        (
            "{1:SA:={2:SA:=inner}}",
            "gap 1 holds another embedded answer (“{2:SA:=inner”): write each gap on its own.",
        ),
        ("{1:SA:=a~%150%b}", "gap 1: the answer weight “150” is not between 0 and 100."),
        ("{1:NM:=1~%-5%2}", "gap 1: the weight “-5” is not a percentage from 0 to 100."),
        ("{1:NM:=NaN}", "gap 1: the numerical answer “NaN” is not a number."),
        ("{1:NM:=1e999}", "gap 1: the numerical answer “1e999” is not a number."),
        ("{1:NM:=inf:1}", "gap 1: the numerical answer “inf:1” is not a number."),
        ("{1:NM:=1:NaN}", "gap 1: the numerical answer “1:NaN” is not a number."),
        (
            "{1:NM:=" + "9" * 5_000 + "}",
            "gap 1: the numerical answer “" + "9" * 30 + "…” is not a number.",
        ),
        (
            "{1:SA:=a" + "~b" * 10_000 + "}",
            "10001 answers: at most 100 are read.",
        ),
    ],
)
def test_what_cant_be_a_gaps_question_leaves_it_out_saying_why(text, message):
    assert problems(text) == [("question 1 (“Q”)", message)]


@pytest.mark.django_db
def test_hostile_markers_are_problems_of_the_plan_quickly_never_errors():
    long_answer = "x" * 10_000
    texts = [
        "{1:SA:=" + long_answer + "}",
        "{1:SA:=a" + "~b" * 10_000 + "}",
        "{1:SA:" * 10_000,
        "{" * 50_000 + "1:SA:=a}",
        "{1:NM:=" + "1" * 5_000 + ".5:" + "2" * 5_000 + "}",
        "{99999999999999999999999:SA:=a} {0:SA:=b} {:SA:=c}",
        "[[1]] {1:SA:=a}",
        "\ufdd21\ufdd2 {1:SA:=a}",
    ]
    questions = "".join(
        f'<question type="cloze"><name><text>Q{number}</text></name><questiontext format="html">'
        f"<text><![CDATA[{text}]]></text></questiontext></question>"
        for number, text in enumerate(texts, 1)
    )
    started = time.perf_counter()
    plan = import_plan(content=f"<quiz>{questions}</quiz>".encode(), file_format="moodle-xml")
    assert time.perf_counter() - started < 5
    assert plan.errors == ()
    assert plan.problems == (
        ("question 2 (“Q2”)", "10001 answers: at most 100 are read."),
        (
            "question 3 (“Q3”)",
            "gap 1 (“{1:SA:{1:SA:{1:SA:{1:SA:{1:SA:…”) is not closed: end it with }.",
        ),
        (
            "question 5 (“Q5”)",
            "gap 1: the numerical answer “111111111111111111111111111111…” is not a number.",
        ),
        (
            "question 1 (“Q1”), choice 1",
            "text (en): This text is 10000 characters long; the limit is 3000.",
        ),
        (
            "question 1 (“Q1”), choice 1",
            "text (en): Ensure this value has at most 500 characters (it has 10000).",
        ),
        (
            "question 4 (“Q4”)",
            "prompt (en): This text is 50004 characters long; the limit is 3000.",
        ),
    )
    # Gaps numbered oddly: their numbers are weights, which here are equal shares.
    assert plan.warnings == (
        (
            "question 6 (“Q6”)",
            "the gaps are weighted 9999999999…, 0, 1: here each gap earns an equal share.",
        ),
    )
    # A text's own "[[1]]" and the noncharacter a gap is held by while read are text.
    import_apply(plan=replace(plan, rest=True))
    assert list(Question.objects.values_list("prompt_en", flat=True)) == [
        "[[1]] [[2]] [[3]]",
        "\\[\\[1\\]\\] [[1]]",
        "\ufffd1\ufffd [[1]]",
    ]


def test_its_export_writes_the_markers_where_the_gaps_are_and_reads_back():
    question = {
        "kind": "gaps",
        "prompt": {"en": "**Sum** [[2]] of [[1]] in `C#`?"},
        "gaps": ["single", "short_answer"],
        "keep_choice_order": True,
        "case_sensitive": True,
        "choices": [
            gap_choice(1, "all~reduce {x}", True, "Yes #1"),
            gap_choice(1, "=broadcast", False, "No\\", credit="0.25"),
            gap_choice(2, "R&D*", True),
            gap_choice(2, "%", False, "Not \\} that."),
        ],
    }
    data = {"slug": "s", "title": {"en": "S"}, "questions": [question]}
    written = moodle_xml_export(data, language="en").decode()
    assert '<question type="cloze">' in written
    assert (
        "<text>**Sum** {1:SHORTANSWER_C:=R&amp;amp;D*~%0%%#Not \\\\\\} that.} of "
        "{1:MULTICHOICE:=all\\~reduce {x\\}#Yes \\#1~%25%=broadcast#No\\\\} in `C#`?</text>"
    ) in written
    (back,) = moodle_xml_parse(written.encode(), language="en").quizzes[0]["questions"]
    assert back["prompt"] == {"en": "**Sum** [[1]] of [[2]] in `C#`?"}
    assert back["gaps"] == ["short_answer", "single"]
    assert back["choices"] == [
        gap_choice(1, "R&D*", True),
        gap_choice(1, "%", False, "Not \\} that."),
        gap_choice(2, "all~reduce {x}", True, "Yes #1"),
        gap_choice(2, "=broadcast", False, "No\\", credit="0.25"),
    ]
    assert (back["keep_choice_order"], back["case_sensitive"]) == (True, True)


def test_a_gap_the_prompt_lacks_in_the_files_language_goes_at_its_end():
    question = {
        "kind": "gaps",
        "prompt": {"en": "It is [[1]] or [[2]].", "fr": "C’est [[1]]."},
        "gaps": ["short_answer", "numerical"],
        "choices": [
            {"gap": 1, "text": {"en": "this", "fr": "ceci"}, "correct": True},
            {"gap": 2, "text": {"en": "2"}, "correct": True, "tolerance": "1%"},
        ],
    }
    data = {"slug": "s", "title": {"en": "S"}, "questions": [question]}
    written = moodle_xml_export(data, language="fr").decode()
    # A relative tolerance is written as the distance it is: Moodle's cloze has no other.
    assert "<text>C’est {1:SHORTANSWER:=ceci}. {1:NUMERICAL:=2:0.02}</text>" in written


def test_the_images_its_feedback_shows_go_with_its_text():
    question = {
        "kind": "gaps",
        "prompt": {"en": "Which? [[1]]"},
        "gaps": ["single"],
        "choices": [
            gap_choice(1, "This", True, "See ![the map](images/map.png)"),
            gap_choice(1, "That"),
        ],
    }
    data = {"slug": "s", "title": {"en": "S"}, "questions": [question]}
    written = moodle_xml_export(data, language="en", images={"map.png": PNG})
    assert f'<file name="map.png" path="/" encoding="base64">{b64(PNG)}</file>' in written.decode()
    parsed = moodle_xml_parse(written, language="en")
    assert (parsed.problems, parsed.warnings, parsed.images) == ([], [], {"map.png": PNG})
    assert parsed.quizzes[0]["questions"][0]["choices"][0]["feedback"] == {
        "en": "See ![the map](images/map.png)"
    }


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_gaps_quiz_comes_back_from_its_export_unchanged(language):
    quiz = make_quiz(slug="gaps", questions=2)
    make_gaps(quiz, 2)
    export = quizzes_export(quizzes=[quiz], file_format="moodle-xml", language=language)
    plan = import_plan(
        content=export.content, file_format="moodle-xml", language=language, quiz_slug="gaps"
    )
    assert (plan.errors, plan.problems, plan.warnings, plan.writes) == ((), (), (), ())


@pytest.mark.django_db
def test_the_admins_import_page_imports_a_cloze_question(editor_client):
    content = (FIXTURES / "multianswer_xmlformat.xml").read_bytes()
    response = editor_client.post(IMPORT_URL, {"file": SimpleUploadedFile("cloze.xml", content)})
    page = response.content.decode()
    assert response.status_code == 200
    assert "not kept: Moodle&#x27;s hint." in page
    response = editor_client.post(CONFIRM_URL, {"token": response.context["token"]})
    assert response.status_code == 302
    question = Quiz.objects.get().questions.get()
    assert (question.kind, question.gaps) == ("gaps", ["short_answer", "single"])
    assert question.prompt_en == (
        'Complete this opening line of verse: "The [[1]] and the [[2]] went to sea".'
    )
    assert [(c.gap, c.text_en, c.is_correct) for c in question.choices.all()] == [
        (1, "Dog", False),
        (1, "Owl", True),
        (1, "*", False),
        (2, "Bow-wow", False),
        (2, "Wiggly worm", False),
        (2, "Pussy-cat", True),
    ]


def test_the_messages_speak_french():
    with translation.override("fr"):
        left_out = problems("{1:SA:=a} {1:MR:=b~c}")
        lost = warnings("{1:SAC:=a} {2:SA:=b}")
    assert left_out == [
        (
            "question 1 (\u00ab\u00a0Q\u00a0\u00bb)",
            "trou 2\u00a0: \u00ab\u00a0MR\u00a0\u00bb prend plusieurs réponses\u00a0: ici, un "
            "trou en prend une.",
        )
    ]
    assert lost == [
        "certains trous à réponse courte sont sensibles à la casse et d’autres non\u00a0: ici, "
        "la casse ne compte dans aucun.",
        "les trous ont les poids 1, 2\u00a0: ici, chaque trou vaut une part égale.",
    ]
