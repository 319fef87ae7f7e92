"""What a Moodle file's problems do to its import (issue 23, items 4 and 5): a bad question is
left out, named by its line (GIFT) or number and Moodle name (XML) with the field and the
language, and the rest is kept; the editor chooses between importing the rest and refusing
the file; every file a text shows comes along or is named as left out, and nothing is
stored for a question left out."""

import base64
import io
from dataclasses import replace
from pathlib import Path

import PIL.Image
import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.utils import translation

from quizzes.interchange.exporting import quizzes_export
from quizzes.interchange.importing import import_apply, import_plan
from quizzes.models import ContentImage, Question, Quiz
from tests.factories import make_quiz

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).parent / "moodle_fixtures"
IMPORT_URL = "/admin/quizzes/quiz/import/"
CONFIRM_URL = "/admin/quizzes/quiz/import/confirm/"


def picture(color: str, image_format: str = "PNG") -> str:
    """A real image of 4 × 4 pixels, as Moodle XML's base64."""
    data = io.BytesIO()
    PIL.Image.new("RGB", (4, 4), color).save(data, image_format)
    return base64.b64encode(data.getvalue()).decode()


def multichoice(name: str, text: str, files: str = "", answers: str = "") -> str:
    answers = answers or (
        '<answer fraction="100"><text>Right</text></answer>'
        '<answer fraction="0"><text>Wrong</text></answer>'
    )
    return f"""<question type="multichoice"><name><text>{name}</text></name>
    <questiontext format="html"><text><![CDATA[{text}]]></text>{files}</questiontext>
    <single>true</single>{answers}</question>"""


def xml(*questions: str) -> bytes:
    category = '<question type="category"><category><text>$course$/top/Bank</text></category>'
    return f"<quiz>{category}</question>{''.join(questions)}</quiz>".encode()


def file(name: str, encoded: str) -> str:
    return f'<file name="{name}" path="/" encoding="base64">{encoded}</file>'


def plan_of(content: bytes, file_format: str, **choices):
    return import_plan(content=content, file_format=file_format, **choices)


def test_one_bad_question_of_a_big_gift_bank_is_left_out_and_the_rest_kept():
    questions = [f"::Q{n}:: Question {n}?{{=Yes ~No}}" for n in range(1, 301)]
    questions[1] = "::Long:: Too long?{=Yes ~No ####[markdown]" + "x" * 3_100 + "}"
    content = "\n\n".join(["$CATEGORY: Bank", *questions]).encode()
    plan = plan_of(content, "gift")
    assert plan.errors == ()
    assert plan.problems == (
        (
            "line 5 (“Long”)",
            "explanation (en): This text is 3100 characters long; the limit is 3000.",
        ),
    )
    # Refused by default, as Moodle refuses a file it can't read whole.
    assert plan.leaves_out and not plan.can_apply
    rest = plan_of(content, "gift", import_rest=True)
    assert rest.can_apply and rest.digest == plan.digest
    import_apply(plan=rest)
    prompts = list(Quiz.objects.get().questions.values_list("prompt_en", flat=True))
    assert len(prompts) == 299 and "Too long?" not in prompts


def test_a_decorative_image_leaves_out_its_question_and_is_not_stored():
    content = xml(
        multichoice(
            "Shown",
            '<p>What? <img src="@@PLUGINFILE@@/a.png" alt="A square"></p>',
            file("a.png", picture("navy")),
        ),
        multichoice(
            "Pic",
            '<p>Which? <img src="@@PLUGINFILE@@/b.png" alt="" role="presentation"></p>',
            file("b.png", picture("red")),
        ),
        multichoice("After", "<p>And this?</p>"),
    )
    plan = plan_of(content, "moodle-xml", import_rest=True)
    (problem,) = plan.problems
    assert problem[0] == "question 2 (“Pic”)"
    # The image named as in the Moodle file, not by the name the site would give it.
    assert problem[1].startswith("prompt (en): The image “b.png” has no alt text")
    import_apply(plan=plan)
    assert list(Question.objects.values_list("prompt_en", flat=True))[1] == "And this?"
    (image,) = ContentImage.objects.all()  # a.png only: b.png's question was left out.
    assert image.alt_en == "A square"
    assert (
        Question.objects.get(position=1).prompt_en == f"What? ![A square](/media/{image.file.name})"
    )
    assert [name for name in default_storage.listdir("content")[1]] == [
        image.file.name.split("/")[1]
    ]


def test_a_long_feedback_names_its_choice_field_and_language():
    long = "y" * 3_100
    answers = (
        '<answer fraction="100"><text>Right</text></answer>'
        f'<answer fraction="0"><text>Wrong</text><feedback><text>{long}</text></feedback></answer>'
    )
    plan = plan_of(xml(multichoice("Q-name", "<p>Q?</p>", answers=answers)), "moodle-xml")
    assert plan.problems == (
        (
            "question 1 (“Q-name”), choice 2",
            "feedback (en): This text is 3100 characters long; the limit is 3000.",
        ),
    )
    assert plan.writes == ()


def test_a_french_file_names_the_french_text_at_fault():
    make_quiz(questions=2, french=False)
    answers = "".join(
        f'<answer fraction="{100 if n == 1 else 0}"><text>Choix {n}</text></answer>'
        for n in range(1, 5)
    )
    # Named as the site's questions are keyed: a French file fills the questions it names.
    good = multichoice("Question 1 prompt", "<p>Énoncé un</p>", answers=answers)
    bad = multichoice("Question 2 prompt", "<p>Énoncé deux</p>", answers=answers).replace(
        "<single>", "<generalfeedback><text>\\( \\frac{a \\)</text></generalfeedback><single>"
    )
    plan = plan_of(xml(good, bad), "moodle-xml", language="fr", quiz_slug="dp-quiz")
    (problem,) = plan.problems
    assert problem[0] == "question 2 (“Question 2 prompt”)"
    assert problem[1].startswith("explanation (fr): The formula starting “\\frac{a”")
    import_apply(plan=replace(plan, rest=True))
    prompts = Question.objects.order_by("position").values_list("prompt_fr", flat=True)
    assert list(prompts) == ["Énoncé un", ""]


def test_a_category_description_that_cant_be_shown_is_left_out_not_its_quiz():
    content = xml(multichoice("Q", "<p>Q?</p>")).replace(
        b"</category>", b"</category><info><text>\\( \\frac{a \\)</text></info>", 1
    )
    plan = plan_of(content, "moodle-xml", import_rest=True)
    ((place, message),) = plan.problems
    assert place == "quiz “Bank”"
    assert message.startswith("left out: description (en): The formula starting")
    import_apply(plan=plan)
    assert Quiz.objects.get().description_en == ""


def test_a_linked_file_is_left_out_its_text_kept_and_images_come_with_their_alt_text():
    """As in Moodle's own multichoice.xml: a greeting to listen to, and a flag per answer."""
    prompt = (
        '<p><a href="@@PLUGINFILE@@/bonjour.mp3">Listen to this greeting:</a><br /><br />'
        "What language is being spoken?</p>"
        '<audio controls="true"><source src="@@PLUGINFILE@@/salut.ogg">salut.ogg</audio>'
    )
    sound = base64.b64encode(b"ID3\x03\x00 not an image").decode()
    answers = "".join(
        f'<answer fraction="{fraction}" format="html"><text><![CDATA[<p><img '
        f'src="@@PLUGINFILE@@/flag-{code}.jpg" alt="{alt}" width="30" height="20" /> '
        f"{language}</p>]]></text>{file(f'flag-{code}.jpg', picture(color, 'JPEG'))}</answer>"
        for fraction, code, alt, language, color in (
            (0, "uk", "British Flag", "English", "blue"),
            (100, "france", "French flag", "French", "white"),
        )
    )
    content = xml(
        multichoice(
            "Greeting",
            prompt,
            file("bonjour.mp3", sound) + file("salut.ogg", sound),
            answers,
        )
    )
    plan = plan_of(content, "moodle-xml")
    left_out = (
        "prompt (en): the file “%s” is left out: a text here links to no file but the site's "
        "images; its link is dropped, its text kept."
    )
    assert plan.problems == (
        ("question 1 (“Greeting”)", left_out % "bonjour.mp3"),
        ("question 1 (“Greeting”)", left_out % "salut.ogg"),
    )
    import_apply(plan=replace(plan, rest=True))
    question = Question.objects.get()
    assert question.prompt_en.startswith("Listen to this greeting:")
    assert "images/" not in question.prompt_en and "mp3" not in question.prompt_en
    images = {image.alt_en for image in ContentImage.objects.all()}
    assert images == {"British Flag", "French flag"}
    texts = [choice.text_en for choice in question.choices.all()]
    assert texts[0].startswith("![British Flag](/media/content/") and texts[0].endswith(" English")


def test_an_image_that_cant_come_along_leaves_out_its_question():
    svg = base64.b64encode(b'<svg xmlns="http://www.w3.org/2000/svg"></svg>').decode()
    content = xml(
        multichoice(
            "Drawing",
            '<p><img src="@@PLUGINFILE@@/drawing.svg" alt="A drawing"></p>',
            file("drawing.svg", svg),
        ),
        multichoice("Missing", '<p><img src="@@PLUGINFILE@@/gone.png" alt="Gone"></p>'),
        multichoice("Fine", "<p>Fine?</p>"),
    )
    plan = plan_of(content, "moodle-xml")
    assert [place for place, _message in plan.problems] == [
        "question 2 (“Missing”)",
        "question 1 (“Drawing”)",
    ]
    missing, drawing = (message for _place, message in plan.problems)
    assert missing.startswith("prompt (en): the file “gone.png” is not in the file")
    assert drawing.startswith(
        "prompt (en): the image “drawing.svg” can't come along: This file is not an image"
    )
    import_apply(plan=replace(plan, rest=True))
    assert list(Question.objects.values_list("prompt_en", flat=True)) == ["Fine?"]
    assert not ContentImage.objects.exists()


def test_a_gift_text_that_shows_a_moodle_file_is_left_out_named():
    content = b'::Pic::[html]<p><img src="@@PLUGINFILE@@/x.png" alt="X"></p>{=a ~b}\n'
    plan = plan_of(content, "gift")
    assert plan.problems == (
        (
            "line 1 (“Pic”)",
            "the text shows the file “x.png”, which a GIFT file can't hold "
            "(Moodle XML holds the files of its questions).",
        ),
    )


def test_moodle_19_images_come_along_with_their_prompt():
    """Moodle's own file of questions with the old <image> and <image_base64>: a cloze
    question and a multiple-choice one, which show the same image."""
    content = (FIXTURES / "sample_questions_with_old_image_tag.xml").read_bytes()
    plan = plan_of(content, "moodle-xml")
    assert plan.problems == ()
    assert (
        "question 2 (“mcq with image”)",
        "the image “moodle.png” (Moodle 1.9's <image>) has no alt text: its file name is its "
        "alt text; write what it shows.",
    ) in plan.warnings
    import_apply(plan=plan)
    (image,) = ContentImage.objects.all()
    cloze, question = Question.objects.order_by("position")
    assert question.prompt_en == (
        'This is a multichoice question with an image in the old "image" field that was used '
        f"in Moodle 1.9\n\n![moodle.png](/media/{image.file.name})"
    )
    assert cloze.kind == "gaps" and cloze.gaps == ["single"] * 4 + ["short_answer"]
    assert cloze.prompt_en.endswith(f"[[5]].\\<br />\n\n![moodle.png](/media/{image.file.name})")
    assert default_storage.exists(image.file.name)


@pytest.mark.parametrize("file_format", ["gift", "moodle-xml"])
@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_demo_quizzes_come_back_from_their_export_without_a_warning(file_format, language):
    call_command("loaddemo", stdout=io.StringIO())
    for quiz in Quiz.objects.order_by("slug"):
        export = quizzes_export(quizzes=[quiz], file_format=file_format, language=language)
        plan = plan_of(export.content, file_format, language=language, quiz_slug=quiz.slug)
        assert plan.problems == (), quiz.slug
        assert (plan.errors, plan.warnings) == ((), ()), quiz.slug
        assert plan.writes == (), quiz.slug


def test_the_admin_preview_offers_to_import_the_rest_and_refuses_by_default(editor_client):
    content = xml(
        multichoice("Q-name", "<p>Fine?</p>"),
        '<question type="essay"><name><text>Words</text></name></question>',
        # Only rendering finds this one: the confirm, too, must leave it out.
        multichoice("Formula", "<p>\\( \\frac{a \\)</p>"),
    )
    upload = {"file": SimpleUploadedFile("bank.xml", content)}
    response = editor_client.post(IMPORT_URL, upload)
    page = response.content.decode()
    assert response.status_code == 200
    assert "question 2 (“Words”): an essay question (Moodle type “essay”)" in page
    assert "question 3 (“Formula”): prompt (en): The formula starting" in page
    assert "The file is refused" in page and 'value="Import the rest"' in page
    token = response.context["token"]
    response = editor_client.post(CONFIRM_URL, {"token": token, "cancel": "Refuse the file"})
    assert response.status_code == 302 and not Quiz.objects.exists()
    token = editor_client.post(IMPORT_URL, {"file": SimpleUploadedFile("bank.xml", content)})
    token = token.context["token"]
    response = editor_client.post(CONFIRM_URL, {"token": token, "import_rest": "Import the rest"})
    assert response.status_code == 302
    assert list(Question.objects.values_list("prompt_en", flat=True)) == ["Fine?"]


def test_the_messages_speak_french():
    with translation.override("fr"):
        plan = plan_of(b"::N::Lesquels ?{}\n\nGrant est {~a =b} ici.\n", "gift")
    assert plan.problems == (
        (
            "ligne 1 (\u00ab\u00a0N\u00a0\u00bb)",
            "une question à développement\u00a0: ce site n’a pas ce genre de question.",
        ),
    )


def test_a_question_or_choice_without_text_is_left_out_named():
    content = b"::Empty::{=a ~b}\n\n::Blank choice::Which?{=a ~}\n\n::Fine::Fine?{=Yes ~No}\n"
    plan = plan_of(content, "gift")
    assert plan.problems == (
        ("line 1 (“Empty”)", "prompt needs a text in en."),
        ("line 3 (“Blank choice”), choice 2", "text needs a text in en."),
    )
    assert plan.errors == () and plan.leaves_out


def test_a_choice_longer_than_its_field_is_left_out_named():
    answers = (
        f'<answer fraction="100"><text>{"z" * 600}</text></answer>'
        '<answer fraction="0"><text>Wrong</text></answer>'
    )
    plan = plan_of(xml(multichoice("Q-name", "<p>Q?</p>", answers=answers)), "moodle-xml")
    assert plan.problems == (
        (
            "question 1 (“Q-name”), choice 1",
            "text (en): Ensure this value has at most 500 characters (it has 600).",
        ),
    )


def test_a_plain_text_that_names_a_file_links_to_it_or_names_it_left_out():
    plain = (
        '<question type="truefalse"><name><text>Plain</text></name>'
        '<questiontext format="moodle_auto_format"><text>See @@PLUGINFILE@@/map.png and '
        "@@PLUGINFILE@@/notes.pdf first.</text>"
        f"{file('map.png', picture('green'))}"
        f"{file('notes.pdf', base64.b64encode(b'%PDF').decode())}"
        "</questiontext>"
        '<answer fraction="100"><text>true</text></answer>'
        '<answer fraction="0"><text>false</text></answer></question>'
    )
    plan = plan_of(xml(plain), "moodle-xml", import_rest=True)
    assert plan.problems == (
        (
            "question 1 (“Plain”)",
            "prompt (en): the file “notes.pdf” is left out: a text here links to no file but "
            "the site's images; its link is dropped, its text kept.",
        ),
    )
    import_apply(plan=plan)
    (image,) = ContentImage.objects.all()
    prompt = Question.objects.get().prompt_en
    assert prompt == f"See [map.png](/media/{image.file.name}) and notes.pdf first."
