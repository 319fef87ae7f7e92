"""Editing a gaps (cloze) question in the admin: its gaps' kinds written in order, each
choice's gap, the prompt's gaps in both languages, refusals that name their place and change
nothing, the preview's inputs in each gap, and the regrade warning of an answered one."""

from urllib.parse import urlencode

import pytest
from django.test import Client

from quizzes.models import Answer, Choice, Question
from tests.factories import (
    GAPS_PROMPT_EN,
    GAPS_PROMPT_FR,
    answer_gaps,
    choice_row,
    inline_data,
    make_gaps,
    make_quiz,
    question_form,
    quiz_form,
    start,
)

ADD = "/admin/quizzes/question/add/"


@pytest.fixture
def quiz(guide):
    quiz = make_quiz(questions=1, guide=guide, published=False)
    quiz.questions.get().choices.all().delete()
    return quiz


@pytest.fixture
def cloze(quiz):
    return make_gaps(quiz, 1)


def _row(position: int, gap, en: str, fr: str, **extra) -> dict:
    return choice_row(position, en, fr, gap=gap, **extra)


ROWS = [
    _row(1, 1, "256", "256", correct=True),
    _row(2, 1, "32", "32", feedback_en="One worker's batch.", feedback_fr="Le lot d’un nœud."),
    _row(3, 2, "all-reduce", "all-reduce", correct=True),
    _row(4, 2, "broadcast", "diffusion"),
    _row(5, 3, "DDP", "DDP", correct=True),
]


def _data(question, rows=ROWS, **fields) -> dict:
    defaults = {
        "kind": "gaps",
        "gaps": "numerical, single, short answer",
        "prompt_en": GAPS_PROMPT_EN,
        "prompt_fr": GAPS_PROMPT_FR,
        "variables": "[]",
        "grading": "all",
    }
    return question_form(question, rows, **(defaults | fields))


def _saved_rows(question) -> list[dict]:
    """The rows of a saved question's choices, as its change page posts them."""
    return [
        _row(
            choice.position,
            choice.gap,
            choice.text_en,
            choice.text_fr,
            correct=choice.is_correct,
            id=choice.pk,
            question=question.pk,
            feedback_en=choice.feedback_en,
            feedback_fr=choice.feedback_fr or "",
            tolerance=str(choice.tolerance),
            credit=str(choice.credit),
        )
        for choice in question.choices.all()
    ]


def _recorded(question) -> tuple:
    question = Question.objects.get(pk=question.pk)
    choices = Choice.objects.filter(question=question).order_by("position")
    return (
        question.kind,
        question.gaps,
        question.prompt_en,
        question.prompt_fr,
        list(choices.values_list("gap", "text_en", "text_fr", "is_correct")),
    )


def test_a_gaps_question_is_made_on_the_add_page(editor_client, quiz):
    data = _data(quiz.questions.get(), position="")
    response = editor_client.post(ADD, data)
    assert response.status_code == 302, response.context["errors"]
    question = Question.objects.get(kind="gaps")
    assert question.gaps == ["numerical", "single", "short_answer"]
    assert question.prompt_fr == GAPS_PROMPT_FR
    assert list(question.choices.values_list("gap", "text_fr")) == [
        (1, "256"),
        (1, "32"),
        (2, "all-reduce"),
        (2, "diffusion"),
        (3, "DDP"),
    ]
    assert question.choice_problems() == []


def test_the_change_page_shows_the_kinds_in_order_and_each_choice_s_gap(editor_client, cloze):
    page = editor_client.get(f"/admin/quizzes/question/{cloze.pk}/change/").content.decode()
    assert 'value="numerical, single, short_answer"' in page
    assert 'name="choices-0-gap" value="1"' in page
    assert 'name="choices-2-gap" value="2"' in page
    assert '<option value="gaps" selected>Gaps (cloze)</option>' in page
    assert "separated by commas" in page


def test_a_choice_of_another_kind_shows_no_gap(editor_client, guide):
    question = make_quiz(slug="single", questions=1, guide=guide).questions.get()
    url = f"/admin/quizzes/question/{question.pk}/change/"
    page = editor_client.get(url).content.decode()
    assert 'name="choices-0-gap" class="vIntegerField" min="1" max="8" aria-describedby' in page
    assert 'name="choices-0-gap" value="0"' not in page
    data = question_form(question, [row | {"gap": ""} for row in _saved_rows(question)], initial=4)
    assert editor_client.post(url, data).status_code == 302
    assert set(question.choices.values_list("gap", flat=True)) == {0}


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_an_edit_in_both_languages_is_saved(editor_client, cloze, lang):
    rows = _saved_rows(cloze)
    rows[3] |= {"text_fr": "diffusion (broadcast)", "feedback_fr": "Elle envoie, sans sommer."}
    rows += [_row(8, 1, "512", "512", feedback_en="Twice too many.")]
    prompt_fr = (
        "Les nœuds somment leurs gradients par un [[2]] ; un pas voit [[1]] exemples ([[3]])."
    )
    data = _data(cloze, rows, initial=7, prompt_fr=prompt_fr, gaps="numerical,single,short_answer")
    url = f"/admin/quizzes/question/{cloze.pk}/change/"
    response = editor_client.post(url, data, HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 302, response.context["errors"]
    cloze.refresh_from_db()
    assert cloze.prompt_fr == prompt_fr
    assert cloze.prompt_en == GAPS_PROMPT_EN
    assert cloze.gaps == ["numerical", "single", "short_answer"]
    broadcast = cloze.choices.get(text_en="broadcast")
    assert (broadcast.text_fr, broadcast.feedback_fr) == (
        "diffusion (broadcast)",
        "Elle envoie, sans sommer.",
    )
    assert cloze.choices.get(text_en="512").gap == 1
    assert cloze.choice_problems() == []


def test_the_kinds_may_be_written_as_the_quiz_file_lists_them(editor_client, quiz):
    data = _data(quiz.questions.get(), gaps='["numerical", "single", "short_answer"]')
    response = editor_client.post(
        f"/admin/quizzes/question/{quiz.questions.get().pk}/change/", data
    )
    assert response.status_code == 302, response.context["errors"]
    assert Question.objects.get().gaps == ["numerical", "single", "short_answer"]


NESTED = "[" * 5_000 + "]" * 5_000


@pytest.mark.parametrize(
    ("fields", "lang", "says"),
    [
        ({"gaps": ""}, "en", "A gaps question needs the kind of each of its gaps, in order."),
        (
            {"gaps": "numerical, essay, short_answer"},
            "en",
            "“essay” is no kind of gap: a gap is one of single, short_answer, numerical.",
        ),
        (
            {"gaps": "numerical, none, short_answer"},
            "fr",
            "none\u00a0» n’est pas un type de trou",
        ),
        (
            {"gaps": "numerical,,short_answer"},
            "en",
            "Gap 2 has no kind: write the kind of each gap, separated by commas.",
        ),
        ({"gaps": ", ".join(["single"] * 9)}, "en", "A gaps question has at most 8 gaps, not 9."),
        ({"gaps": "x" * 10_000}, "en", "at most 200 characters (it has 10000)."),
        ({"gaps": NESTED}, "en", "at most 200 characters (it has 10000)."),
        ({"gaps": "[[[single]]], numerical, short_answer"}, "en", "“[[[single]]]” is no kind"),
        ({"kind": "single", "gaps": "single"}, "en", "Only gaps questions have gaps."),
        (
            {"prompt_fr": "Un pas voit [[1]] exemples, sommés par un [[2]]."},
            "en",
            "prompt (fr): write each gap once, [[1]] to [[3]], where the learner fills it in.",
        ),
        (
            {"prompt_en": GAPS_PROMPT_EN + " Again: [[2]]."},
            "fr",
            "énoncé (en)\u00a0: écrivez chaque trou une fois, de [[1]] à [[3]]",
        ),
        (
            {"gaps": "numerical, single, short_answer, single"},
            "en",
            "prompt (en): write each gap once, [[1]] to [[4]]",
        ),
    ],
)
def test_bad_gaps_are_refused_and_change_nothing(editor_client, cloze, fields, lang, says):
    before = _recorded(cloze)
    data = _data(cloze, _saved_rows(cloze), initial=7, **fields)
    response = editor_client.post(
        f"/admin/quizzes/question/{cloze.pk}/change/", data, HTTP_ACCEPT_LANGUAGE=lang
    )
    assert response.status_code == 200
    assert says in response.content.decode().replace("&amp;", "&")
    assert _recorded(cloze) == before


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({4: {"gap": "7"}}, "choice 5: give the number of its gap, 1 to 3."),
        ({4: {"gap": ""}}, "choice 5: give the number of its gap, 1 to 3."),
        ({4: {"gap": "-1"}}, "Ensure this value is greater than or equal to 0."),
        ({4: {"gap": "9223372036854775808"}}, "Ensure this value is less than or equal to"),
        ({4: {"gap": "1" + "0" * 5_000}}, "Enter a whole number."),
        ({n: {"gap": "1"} for n in (5, 6)}, "gap 3 has no choices."),
        ({0: {"text_en": "lots", "text_fr": "lots"}}, "gap 1: "),
        ({2: {"is_correct": ""}}, "gap 2: "),
    ],
)
def test_bad_choice_gaps_are_refused_and_change_nothing(editor_client, cloze, change, says):
    before = _recorded(cloze)
    rows = _saved_rows(cloze)
    for number, fields in change.items():
        rows[number] |= fields
        if fields.get("is_correct") == "":
            del rows[number]["is_correct"]
    response = editor_client.post(
        f"/admin/quizzes/question/{cloze.pk}/change/", _data(cloze, rows, initial=7)
    )
    assert response.status_code == 200
    assert says in response.content.decode()
    assert _recorded(cloze) == before


@pytest.mark.parametrize(
    ("field", "value"), [("gaps", "single\x00, numerical"), ("choices-4-gap", "1\x00")]
)
def test_a_nul_is_refused_and_changes_nothing(editor_client, cloze, field, value):
    before = _recorded(cloze)
    data = _data(cloze, _saved_rows(cloze), initial=7) | {field: value}
    response = editor_client.post(f"/admin/quizzes/question/{cloze.pk}/change/", data)
    assert response.status_code == 400
    assert "Bad request" in response.content.decode()
    assert _recorded(cloze) == before


def test_a_lone_surrogate_is_refused_and_changes_nothing(editor_client, cloze):
    """Sent as a browser can't, its invalid UTF-8 bytes read as replacement characters."""
    before = _recorded(cloze)
    data = _data(cloze, _saved_rows(cloze), initial=7, gaps="numerical, \ud800, short_answer")
    body = urlencode(data, encoding="utf-8", errors="surrogatepass")
    response = editor_client.post(
        f"/admin/quizzes/question/{cloze.pk}/change/",
        body,
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 200
    assert "is no kind of gap" in response.content.decode()
    assert _recorded(cloze) == before


def test_the_preview_shows_an_input_in_each_gap_in_each_language(editor_client, quiz):
    question = quiz.questions.get()
    data = _data(question, _preview="Preview")
    response = editor_client.post(f"/admin/quizzes/question/{question.pk}/change/", data)
    assert response.status_code == 200
    page = response.content.decode()
    typed = '<input type="text" class="gap-input gap-{}" aria-label="{}" disabled>'
    slot = '<span class="gap-slot">{}</span>'
    first = slot.format(typed.format("number", "Gap 1"))
    assert "one optimizer step sees " + first + " samples." in page
    assert "un pas de l’optimiseur voit " + first in page
    assert page.count(typed.format("text", "Gap 3")) == 2
    select = '<select class="gap-input" aria-label="Gap 2" disabled><option>Choose…</option>'
    assert select + "<option>all-reduce</option><option>broadcast</option></select>" in page
    assert select + "<option>all-reduce</option><option>diffusion</option></select>" in page
    assert "[[" not in page.split('id="preview"')[1]
    assert page.count('<span class="preview-gap-name">Gap 1 · Numerical</span>') == 2
    assert '<div class="preview-feedback" lang="fr"><p>Le lot d’un nœud.</p>' in page
    assert not Choice.objects.filter(question=question).exists()
    assert Question.objects.get(pk=question.pk).kind == "single"


def test_the_preview_in_french_keeps_a_gap_of_no_kind_a_blank(editor_client, quiz):
    question = quiz.questions.get()
    rows = [*ROWS, _row(6, "", "orphan", "orpheline")]
    data = _data(question, rows, gaps="numerical, essay", _preview="1")
    response = editor_client.post(
        f"/admin/quizzes/question/{question.pk}/change/", data, HTTP_ACCEPT_LANGUAGE="fr"
    )
    page = response.content.decode()
    assert 'aria-label="Trou 1" disabled>' in page
    assert '<span class="gap-blank" data-gap="2">(2)</span>' in page  # "essay": no input.
    assert '<span class="gap-blank" data-gap="3">(3)</span>' in page  # Past the kinds given.
    assert page.count("Choix d’aucun trou") == 2
    assert "essay\u00a0» n’est pas un type de trou" in page


def test_the_saved_question_s_preview_has_its_inputs(editor_client, cloze):
    page = editor_client.get(f"/admin/quizzes/question/{cloze.pk}/change/").content.decode()
    assert "Preview of the saved question" in page
    assert page.count('aria-label="Gap 2" disabled>') == 2
    assert "<option>all-gather</option>" in page


@pytest.fixture
def answered(guide):
    quiz = make_quiz(slug="answered", questions=1, guide=guide)
    question = make_gaps(quiz, 1)
    learner = Client()
    attempt = start(learner, quiz)
    all_reduce = question.choices.get(text_en="all-reduce")
    assert answer_gaps(learner, attempt, 1, ["256", all_reduce, "DDP"]).status_code == 302
    assert Answer.objects.get().credit == 1
    return question


WARNING = "This question has 1 recorded answer. It keeps the grade it was given"


@pytest.mark.parametrize(
    ("gaps", "moved"),
    [("short_answer, single, short_answer", {}), ("numerical, single, short_answer", {1: 2})],
    ids=["kinds", "choice-gap"],
)
def test_changing_an_answered_gaps_question_says_its_answer_keeps_its_grade(
    editor_client, answered, gaps, moved
):
    rows = _saved_rows(answered)
    for number, gap in moved.items():  # 32, a wrong value of gap 1, a wrong pick of gap 2.
        rows[number]["gap"] = gap
    data = _data(answered, rows, initial=7, gaps=gaps)
    url = f"/admin/quizzes/question/{answered.pk}/change/"
    response = editor_client.post(url, data, follow=True)
    assert response.redirect_chain, response.context["errors"]
    assert response.content.decode().count(WARNING) == 1
    assert Answer.objects.get().credit == 1


def test_saving_an_answered_gaps_question_unchanged_warns_of_nothing(editor_client, answered):
    data = _data(answered, _saved_rows(answered), initial=7, gaps="numerical, single, short_answer")
    data["key"] = answered.key
    response = editor_client.post(
        f"/admin/quizzes/question/{answered.pk}/change/", data, follow=True
    )
    assert response.redirect_chain, response.context["errors"]
    assert WARNING not in response.content.decode()


def test_the_quiz_page_can_t_take_a_published_gaps_question_s_gap_away(editor_client, guide):
    """The quiz page's questions inline edits prompts and kinds too: on a published quiz,
    what it changes must still suit the question's choices, as publishing asks."""
    quiz = make_quiz(slug="cloze", questions=1, guide=guide)
    question = make_gaps(quiz, 1)
    row = {
        "id": question.pk,
        "quiz": quiz.pk,
        "position": 1,
        "prompt_en": GAPS_PROMPT_EN.replace("[[3]]", "DDP"),
        "prompt_fr": GAPS_PROMPT_FR,
        "kind": "gaps",
    }
    data = quiz_form(guide, title_en=quiz.title_en, slug=quiz.slug, is_published="on")
    url = f"/admin/quizzes/quiz/{quiz.pk}/change/"
    response = editor_client.post(url, data | inline_data("questions", [row], initial=1))
    assert response.status_code == 200
    assert "question 1: prompt (en): write each gap once, [[1]] to [[3]]" in (
        response.content.decode()
    )
    question.refresh_from_db()
    assert question.prompt_en == GAPS_PROMPT_EN
    row["prompt_en"] = GAPS_PROMPT_EN + " Now with a last sentence."
    response = editor_client.post(url, data | inline_data("questions", [row], initial=1))
    assert response.status_code == 302
    question.refresh_from_db()
    assert question.prompt_en.endswith("a last sentence.")
