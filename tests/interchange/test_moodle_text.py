"""Moodle's texts as our Markdown (quizzes/interchange/moodle_common.py): what Moodle's editor
writes, its TeX and its multilang, read from HTML, GIFT and Moodle XML.

The imports at the end use the database.
"""

from pathlib import Path

import pytest

from quizzes.interchange.gift import BLANK_MARKDOWN, gift_parse
from quizzes.interchange.importing import import_apply, import_plan
from quizzes.interchange.moodle_common import (
    Converted,
    html_to_markdown,
    multilang_texts,
    to_markdown,
)
from quizzes.interchange.moodle_xml import moodle_xml_parse
from quizzes.markup.rendering import problems, render
from quizzes.models import Question
from tests.complexity import assert_linear
from tests.factories import make_quiz

FIXTURES = Path(__file__).parent / "moodle_fixtures"


def md(html: str) -> str:
    return html_to_markdown(html).text


@pytest.mark.parametrize(
    ("html", "markdown"),
    [
        ("<p>Une réponse.<br></p>", "Une réponse."),
        ('<p dir="ltr" style="text-align: left;">One.<br></p>\n<p>Two.<br /></p>', "One.\n\nTwo."),
        ("<p>One.<br><br></p><p>Two.</p>", "One.\n\nTwo."),
        ("<p><br>One.</p>", "One."),
        ("<p>a</p><br><p>b</p>", "a\n\nb"),
    ],
)
def test_breaks_closing_a_paragraph_leave_no_backslash(html, markdown):
    assert md(html) == markdown


def test_two_breaks_in_a_row_part_paragraphs():
    # The question text of Moodle's question/format/xml/tests/fixtures/multichoice.xml.
    html = (
        '<p><a href="@@PLUGINFILE@@/bonjour.mp3">Listen to this greeting:</a><br /><br />'
        "What language is being spoken?</p>"
    )
    assert md(html) == "[Listen to this greeting:](@@PLUGINFILE@@/bonjour.mp3)\n\n" + (
        "What language is being spoken?"
    )


def test_a_break_inside_a_paragraph_stays_a_hard_break():
    assert md("<p>Line one<br>line two<br></p>") == "Line one\\\nline two"
    assert "Line one<br>" in render(md("<p>Line one<br>line two</p>"), language="en").html


@pytest.mark.parametrize(
    ("html", "markdown"),
    [
        ("<p>Réponse<strong> incorrecte.</strong></p>", "Réponse **incorrecte.**"),
        ("<p>a<em>b </em>c</p>", "a*b* c"),
        ("<p><b> bold </b>and<i> it</i></p>", "**bold** and *it*"),
        ("<p>x<strong> </strong>y<em></em></p>", "x y"),
        ("<p><b><i>both</i></b></p>", "***both***"),
        ("<p><b>never closed</p>", "never closed"),
    ],
)
def test_emphasis_keeps_its_spaces_outside_its_markers(html, markdown):
    assert md(html) == markdown


def test_emphasis_at_word_edges_renders():
    html = render(md("<p>Réponse<strong> incorrecte.</strong></p>"), language="fr").html
    assert "<strong>incorrecte.</strong>" in html


def test_comments_are_dropped_with_the_tags_they_hold():
    assert md("<p>Before <!-- <p>hidden</p> --> after.</p><!-- x -->") == "Before after."
    assert md("a <!-- never closed") == "a \\<!-- never closed"


def test_a_table_becomes_a_markdown_table():
    html = (
        "<table><caption>Ports</caption><thead><tr><th>Service</th><th>Port</th></tr></thead>"
        "<tbody><tr><td>HTTP <b>web</b></td><td>80</td></tr>"
        "<tr><td>a|b</td><td><p>one</p><p>two</p></td></tr><tr><td>short</td></tr></tbody></table>"
        "<p>After.</p>"
    )
    assert md(html) == (
        "Ports\n\n"
        "| Service | Port |\n| --- | --- |\n| HTTP **web** | 80 |\n| a\\|b | one two |\n"
        "| short |  |\n\nAfter."
    )
    rendered = render(md(html), language="en").html
    assert "<th>Service</th>" in rendered
    assert "<td>a|b</td>" in rendered


def test_a_table_without_headings_takes_its_first_row_as_header():
    assert md("<table><tr><td>1</td><td>2</td></tr><tr><td>3</td><td>4</td></tr></table>") == (
        "| 1 | 2 |\n| --- | --- |\n| 3 | 4 |"
    )


def test_sub_and_superscripts_are_unicode_where_they_can_be_else_formulas():
    assert md("H<sub>2</sub>O, x<sup>2</sup>, 10<sup>-3</sup>, x<sup>n+1</sup>") == (
        "H₂O, x², 10⁻³, xⁿ⁺¹"
    )
    text = md("T<sub>max</sub> and e<sup>i pi</sup>")
    assert text == "T${}_{\\text{max}}$ and e${}^{\\text{i pi}}$"
    rendered = render(text, language="en").html
    assert "<msub>" in rendered
    assert "<mtext>max</mtext>" in rendered
    assert problems(text) == []
    french = md("le 1<sup>er</sup> mai, le XIX<sup>e</sup> siècle")
    assert french == "le $1^{\\text{er}}$ mai, le XIX${}^{\\text{e}}$ siècle"
    assert render(french, language="fr").html.count("<msup>") == 2


def test_a_script_that_is_neither_is_kept_as_text_and_named():
    assert html_to_markdown("1<sup>ère</sup>") == Converted("1ère", ("sup",))
    converted = html_to_markdown("x<sup>[a]</sup>")
    assert converted.text == "x\\[a\\]"
    assert converted.dropped == ("sup",)


@pytest.mark.parametrize(
    ("source", "markdown"),
    [
        (r"<p>Area: \( \pi r^2 \).</p>", r"Area: $\pi r^2$."),
        (r"<p>\[ \frac{a}{b} \]</p>", r"$$\frac{a}{b}$$"),
        (r"<p>So $$\frac{a}{b}$$ inline.</p>", r"So $$\frac{a}{b}$$ inline."),
        (r"<p>[tex]\sqrt{2}[/tex]</p>", r"$\sqrt{2}$"),
        (r"<p>Costs $5, $x$ and \$6</p>", r"Costs \$5, \$x\$ and \\\$6"),
    ],
)
def test_tex_becomes_our_formulas(source, markdown):
    assert md(source) == markdown


def test_moodle_tex_renders_as_mathml_not_as_letters():
    for text in (md(r"<p>So $$\frac{a}{b}$$ inline.</p>"), md(r"<p>\(\frac{a}{b}\)</p>")):
        rendered = render(text, language="en").html
        assert "<mfrac>" in rendered
        assert "<mi>f</mi><mi>r</mi>" not in rendered


def test_plain_and_gift_tex_become_formulas_too():
    assert to_markdown(r"Solve \(x^2 = 4\) *now*", "plain").text == r"Solve $x^2 = 4$ \*now\*"
    parsed = gift_parse(r"::Q:: What is $$\\frac\{1\}\{2\}$$? {=half ~third}", language="en")
    prompt = parsed.quizzes[0]["questions"][0]["prompt"]["en"]
    assert prompt == r"What is $$\frac{1}{2}$$?"
    assert "<mfrac>" in render(prompt, language="en").html


def test_tex_that_cannot_be_converted_is_named_once_a_formula():
    text = md(r"<p>\(\foo{x}\)</p>")
    assert text == r"$\foo{x}$"
    assert problems(text) == ["The formula starting “\\foo{x}” uses \\foo, which is not known."]


def test_multilang_spans_fill_each_language():
    html = (
        '<p>Flag: <span lang="en" class="multilang">Which colour?</span>'
        ' <span class="multilang" lang="fr_ca">Quelle <b>couleur</b>?</span>'
        ' <span lang="de" class="multilang">Welche Farbe?</span></p>'
    )
    assert multilang_texts(html, "en") == {
        "en": "<p>Flag: Which colour?</p>",
        "fr": "<p>Flag: Quelle <b>couleur</b>?</p>",
    }


def test_mlang_fills_each_language_with_other_as_fallback():
    text = "{mlang en}Yes{mlang}{mlang fr}Oui{mlang} — {mlang other}Ja{mlang}{mlang en}Y{mlang}"
    assert multilang_texts(text, "en") == {"en": "Yes — Y", "fr": "Oui — Ja"}


def test_a_text_without_multilang_fills_the_files_language():
    assert multilang_texts("<p>Just French</p>", "fr") == {"fr": "<p>Just French</p>"}
    assert multilang_texts('<span lang="es" class="multilang">Hola</span>', "fr") == {"fr": "Hola"}


def test_a_moodle_xml_multilang_question_fills_both_languages():
    content = """<?xml version="1.0" encoding="UTF-8"?><quiz>
<question type="truefalse"><name><text>Sky</text></name>
<questiontext format="html"><text><![CDATA[<p>
<span lang="en" class="multilang">The sky is blue.<br></span>
<span lang="fr" class="multilang">Le ciel est bleu.<br></span>
</p>]]></text></questiontext>
<answer fraction="100"><text>true</text></answer><answer fraction="0"><text>false</text></answer>
</question></quiz>"""
    parsed = moodle_xml_parse(content, language="en")
    prompt = parsed.quizzes[0]["questions"][0]["prompt"]
    assert prompt == {"en": "The sky is blue.", "fr": "Le ciel est bleu."}


def test_a_gift_mlang_choice_fills_both_languages():
    parsed = gift_parse(
        r"Capital? {=\{mlang en\}Paris, the city\{mlang\}\{mlang fr\}Paris, la ville\{mlang\}"
        " ~Lyon}",
        language="en",
    )
    choices = parsed.quizzes[0]["questions"][0]["choices"]
    assert choices[0]["text"] == {"en": "Paris, the city", "fr": "Paris, la ville"}


def test_moodles_own_fixture_reads_as_clean_text():
    content = (FIXTURES / "category_with_description.xml").read_bytes()
    parsed = moodle_xml_parse(content, language="en")
    quiz = parsed.quizzes[0]
    assert quiz["title"] == {"en": "Alpha"}
    assert quiz["description"] == {"en": "This is Alpha category for test"}
    assert quiz["questions"][0]["prompt"] == {"en": "Testing Alpha Question"}


def test_single_dollars_stay_text_as_in_moodle():
    rendered = render(md("<p>Costs $5, $x$</p>"), language="en").html
    assert "<math" not in rendered
    assert "Costs $5, $x$" in rendered


MULTILANG_GIFT = (
    r"::Sky::[html]<p>\{mlang en\}The sky is blue.\{mlang\}"
    r"\{mlang fr\}Le ciel est bleu.\{mlang\}<br></p> {TRUE}"
)


def test_a_multilang_gift_file_imports_both_languages(db):
    plan = import_plan(content=MULTILANG_GIFT.encode(), name="sky.gift", language="en")
    assert not plan.problems
    import_apply(plan=plan)
    question = Question.objects.get()
    assert (question.prompt_en, question.prompt_fr) == ("The sky is blue.", "Le ciel est bleu.")


def test_a_multilang_file_fills_both_languages_of_the_quiz_it_matches(db):
    quiz = make_quiz(questions=1, choices=2, french=False)
    content = (
        r"\{mlang en\}Which one?\{mlang\}\{mlang fr\}Laquelle ?\{mlang\}"
        r" {=\{mlang en\}First\{mlang\}\{mlang fr\}La première\{mlang\} ~Second}"
    )
    plan = import_plan(content=content.encode(), name="q.gift", language="en", quiz_slug=quiz.slug)
    assert not plan.problems
    import_apply(plan=plan)
    # A question without a name is known by its prompt: a new one, the quiz's kept.
    kept, question = quiz.questions.order_by("position")
    assert kept.prompt_en == "Question 1 prompt"
    assert (question.key, question.prompt_en, question.prompt_fr) == (
        "Which one?",
        "Which one?",
        "Laquelle ?",
    )
    first = question.choices.order_by("position").first()
    assert (first.text_en, first.text_fr) == ("First", "La première")


def test_moodles_own_gift_fixture_reads_as_clean_text():
    parsed = gift_parse((FIXTURES / "questions.gift.txt").read_bytes(), language="en")
    (first,) = [q for q in parsed.quizzes[0]["questions"] if q.get("key") == "Q2"]
    assert first["prompt"] == {"en": "What's between orange and green in the spectrum?"}
    assert [c["feedback"]["en"] for c in first["choices"]] == [
        "right; good!",
        "wrong, it's yellow",
        "wrong, it's yellow",
    ]
    texts = [
        text
        for quiz in parsed.quizzes
        for question in quiz["questions"]
        for item in [question, *question["choices"]]
        for field in ("prompt", "text", "feedback", "explanation")
        for text in item.get(field, {}).values()
    ]
    # The blank of a missing-word question is the one backslash: an escaped "_____".
    assert not [
        text for text in texts if "\\" in text.replace(BLANK_MARKDOWN, "") or "[html]" in text
    ]
    # Numerical, its "~" the feedback of any other number (Moodle's "*" answer).
    questions = [question for quiz in parsed.quizzes for question in quiz["questions"]]
    (numerical,) = [question for question in questions if question.get("key") == "Q5"]
    assert numerical["kind"] == "numerical"
    assert numerical["choices"] == [
        {"text": {"en": "3"}, "correct": True, "tolerance": "2"},
        {"text": {"en": "*"}, "correct": False, "feedback": {"en": "Completely wrong"}},
    ]
    # Text after the answers (here `";`) makes a missing-word question, in Moodle too.
    (true_false,) = [
        question
        for quiz in parsed.quizzes
        for question in quiz["questions"]
        if question["prompt"]["en"].startswith("42")
    ]
    assert true_false["prompt"] == {
        "en": "42 is the Absolute Answer to everything." + BLANK_MARKDOWN + '";'
    }


def test_unclosed_multilang_is_read_in_linear_time():
    assert multilang_texts("{mlang fr}x " * 10_000, "en") == {"en": "{mlang fr}x " * 10_000}
    spans = '<span lang="fr" class="multilang">x' * 3_000
    assert multilang_texts(spans, "en") == {"en": spans}
    assert_linear(lambda n: multilang_texts("{mlang fr}x " * n, "en"), 4_000)
    assert_linear(lambda n: multilang_texts('<span lang="fr" class="multilang">x' * n, "en"), 2_000)


def test_a_table_in_a_table_is_its_text_in_the_cell():
    html = (
        "<table><tr><td>a<table><tr><td>b</td><td>c</td></tr></table></td><td>d</td></tr></table>"
    )
    converted = html_to_markdown(html)
    assert converted.text == "| a b c | d |\n| --- | --- |"
    assert converted.dropped == ("table",)


def test_tex_is_found_in_linear_time():
    assert md("\\(x " * 20_000 + "\\)").startswith("\\\\(x \\\\(x")
    assert_linear(lambda n: md("\\(x " * n + "\\)"), 4_000)
