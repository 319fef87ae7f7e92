"""A question is known across imports by its key, a Moodle bank's quiz by its category
(issue 23, items 1 and 7): never by title or position, and a change of correct answer is
said. Moodle's own test files (moodle_fixtures/, GPL v3) check what is kept on the way."""

import base64
import io
from pathlib import Path

import PIL.Image

from quizzes.interchange.exporting import quizzes_export
from quizzes.interchange.importing import (
    FORMAT_MOODLE_XML,
    import_apply,
    import_plan,
)
from quizzes.interchange.quizfile import quiz_export
from quizzes.models import ContentImage, Question, Quiz
from tests.factories import make_quiz

FIXTURES = Path(__file__).parent / "moodle_fixtures"


def imported(content: str | bytes, name: str = "bank.gift", **options):
    content = content.encode() if isinstance(content, str) else content
    plan = import_plan(content=content, name=name, import_rest=True, **options)
    assert plan.can_apply, plan.errors
    import_apply(plan=plan)
    return plan


GRANT = """$CATEGORY: $course$/top/History

::tomb:: Who is buried in Grant's tomb? {=Nobody ~Grant}

::born:: Grant was born in 1822. {T}
"""


def test_a_bank_never_fills_a_quiz_only_because_its_title_is_the_same(db):
    make_quiz(slug="history", questions=2, title_en="History")
    imported(GRANT)
    other = GRANT.replace("$course$/top/History", "$course$/top/Other/History").replace(
        "{=Nobody ~Grant}", "{~Nobody =Grant}"
    )
    imported(other)
    quizzes = Quiz.objects.order_by("pk")
    assert [(quiz.category, quiz.questions.count()) for quiz in quizzes] == [
        ("", 2),
        ("$course$/top/History", 2),
        ("$course$/top/Other/History", 2),
    ]
    first = quizzes[1].questions.get(key="tomb")
    assert [(c.text, c.is_correct) for c in first.choices.all()] == [
        ("Nobody", True),
        ("Grant", False),
    ]


def test_a_corrected_bank_updates_its_quiz_and_says_the_correct_answer_changes(db):
    imported(GRANT)
    quiz = Quiz.objects.get(category="$course$/top/History")
    tomb = quiz.questions.get(key="tomb")
    corrected = GRANT.replace("{=Nobody ~Grant}", "{~Nobody =Grant}")
    # Moved first in the file: found by its name, not by its position.
    corrected = corrected.replace("::born:: Grant was born in 1822. {T}\n", "")
    corrected = corrected.replace(
        "$course$/top/History\n", "$course$/top/History\n\n::born:: Grant was born in 1822. {T}\n"
    )
    plan = imported(corrected)
    assert (
        "quiz grant-s-tomb, question 1",
        "the correct answer changes from “Nobody” to “Grant”.",
    ) in [(place.replace(quiz.slug, "grant-s-tomb"), message) for place, message in plan.warnings]
    tomb.refresh_from_db()
    assert [(c.text, c.is_correct) for c in tomb.choices.all()] == [
        ("Nobody", False),
        ("Grant", True),
    ]
    # A bank's questions have no order of their own: the quiz keeps its order.
    assert list(quiz.questions.values_list("key", "position")) == [("tomb", 1), ("born", 2)]
    assert Quiz.objects.count() == 1


def test_a_question_left_out_then_corrected_is_added_once(db):
    first = (
        "$CATEGORY: Networks\n\nWhich port is HTTP? {=80 ~21}\n\n"
        "Which port is SSH? {=22 ~23 ~=24}\n\nUDP is reliable. {F}\n"
    )
    plan = imported(first)
    assert plan.problems  # Two correct answers for a single-choice question: left out.
    quiz = Quiz.objects.get(category="Networks")
    assert quiz.questions.count() == 2
    imported(first.replace("~=24", "~24"))
    assert list(quiz.questions.values_list("key", flat=True)) == [
        "Which port is HTTP?",
        "UDP is reliable.",
        "Which port is SSH?",
    ]
    again = import_plan(content=first.replace("~=24", "~24").encode(), name="bank.gift")
    assert again.writes == ()


def test_questions_of_one_prompt_and_no_name_are_told_apart_in_file_order(db):
    bank = "$CATEGORY: Same\n\n" + "Same? {T}\n\n" * 3
    imported(bank)
    assert list(Question.objects.values_list("key", flat=True)) == [
        "Same?",
        "Same? (2)",
        "Same? (3)",
    ]
    assert import_plan(content=bank.encode(), name="bank.gift").writes == ()


def test_two_categories_of_the_same_last_name_import_again_and_again(db):
    bank = (
        "$CATEGORY: $course$/top/A/Quiz\n\nOne? {T}\n\n$CATEGORY: $course$/top/B/Quiz\n\nTwo? {F}\n"
    )
    imported(bank)
    assert sorted(Quiz.objects.values_list("category", flat=True)) == [
        "$course$/top/A/Quiz",
        "$course$/top/B/Quiz",
    ]
    again = import_plan(content=bank.encode(), name="bank.gift")
    assert again.can_apply and again.writes == ()


def test_moodles_nested_categories_each_make_a_quiz_that_keeps_its_path(db):
    content = (FIXTURES / "nested_categories_with_questions.xml").read_bytes()
    plan = imported(content, "nested.xml")
    assert [place for place, _message in plan.problems] == ["question 2 (“Kappa Essay Question”)"]
    quizzes = Quiz.objects.order_by("pk")
    assert [(q.category, q.title, q.description) for q in quizzes] == [
        ("$course$/Iota", "Iota", "This is Iota category for test"),
        ("$course$/Iota/Kappa", "Kappa", "This is Kappa category for test"),
        ("$course$/Iota/Kappa/Lambda", "Lambda", "This is Lambda category for test"),
        ("$course$/Iota/Mu", "Mu", "This is Mu category for test"),
    ]
    assert list(Question.objects.order_by("pk").values_list("key", flat=True)) == [
        "Iota Question",
        "Kappa Question",
        "Lambda Question",
        "Mu Question",
    ]
    exported = quizzes_export(quizzes=list(quizzes), file_format=FORMAT_MOODLE_XML, language="en")
    text = exported.content.decode()
    for path in ("$course$/Iota", "$course$/Iota/Kappa/Lambda", "$course$/Iota/Mu"):
        assert f"<category>\n      <text>{path}</text>" in text
    assert "<name>\n      <text>Kappa Question</text>" in text
    again = import_plan(content=exported.content, name="again.xml")
    assert again.can_apply and again.writes == ()


def test_moodles_id_numbers_are_the_keys_and_names_stay_beside_them(db):
    imported((FIXTURES / "html_chars_in_idnumbers.xml").read_bytes(), "ids.xml")
    question = Question.objects.get()
    assert (question.key, question.name) == ("T & F", "Alpha Question")
    exported = quizzes_export(
        quizzes=[question.quiz], file_format=FORMAT_MOODLE_XML, language="en"
    ).content.decode()
    assert "<idnumber>T &amp; F</idnumber>" in exported
    assert "<text>Alpha Question</text>" in exported


def _content(quiz: Quiz) -> dict:
    """A quiz as a file holds it, without what a site gives it (its slug)."""
    data = quiz_export(quiz=quiz)
    data.pop("slug")
    return data


def _png(colour: str) -> str:
    picture = io.BytesIO()
    PIL.Image.new("RGB", (4, 4), colour).save(picture, "PNG")
    return base64.b64encode(picture.getvalue()).decode()


BANK = f"""<?xml version="1.0" encoding="UTF-8"?><quiz>
<question type="category"><category><text>$course$/top/Drawings</text></category></question>
<question type="multichoice">
  <name><text>Square</text></name>
  <questiontext format="html"><text><![CDATA[<p>What is drawn?
    <img src="@@PLUGINFILE@@/a.png" alt="a navy square"></p>]]></text>
    <file name="a.png" path="/" encoding="base64">{_png("navy")}</file></questiontext>
  <generalfeedback format="html"><text><![CDATA[<p>See <img src="@@PLUGINFILE@@/b.png"
    alt="the key"></p>]]></text>
    <file name="b.png" path="/" encoding="base64">{_png("red")}</file></generalfeedback>
  <idnumber>drawn-1</idnumber>
  <shuffleanswers>false</shuffleanswers>
  <single>true</single>
  <answer fraction="100"><text>A square</text><feedback><text>Yes.</text></feedback></answer>
  <answer fraction="0"><text>A circle</text><feedback><text>It has corners.</text></feedback>
  </answer>
</question>
<question type="multichoice">
  <name><text>Shapes</text></name>
  <questiontext format="html"><text><![CDATA[<p>Which have corners?</p>]]></text></questiontext>
  <single>false</single>
  <answer fraction="50"><text>A square</text></answer>
  <answer fraction="50"><text>A triangle</text></answer>
  <answer fraction="-100"><text>A circle</text></answer>
</question>
</quiz>"""


def test_moodle_xml_to_quizsite_to_moodle_xml_to_a_clean_site_keeps_everything(db, media_root):
    imported(BANK, "bank.xml")
    imported((FIXTURES / "category_with_description.xml").read_bytes(), "described.xml")
    quizzes = list(Quiz.objects.order_by("pk"))
    before = [_content(quiz) for quiz in quizzes]
    assert [len(data["questions"]) for data in before] == [2, 1]
    assert before[0]["questions"][0]["key"] == "drawn-1"
    assert before[0]["questions"][0]["name"] == "Square"
    assert before[0]["questions"][0]["keep_choice_order"] is True
    assert "/media/content/" in before[0]["questions"][0]["explanation"]["en"]
    exported = quizzes_export(quizzes=quizzes, file_format=FORMAT_MOODLE_XML, language="en")
    assert exported.content.count(b'encoding="base64"') == 2  # Its images go along.
    Quiz.objects.all().delete()
    ContentImage.objects.all().delete()
    imported(exported.content, "exported.xml")
    assert [_content(quiz) for quiz in Quiz.objects.order_by("pk")] == before
    assert ContentImage.objects.count() == 2
