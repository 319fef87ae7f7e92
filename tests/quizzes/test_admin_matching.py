"""Editing a matching question in the admin: each choice's right item in both languages, a
distractor with no text, the preview's select boxes, and refusals that change nothing."""

import pytest

from quizzes.models import Choice
from tests.factories import choice_row, make_quiz, question_form


@pytest.fixture
def question(guide):
    quiz = make_quiz(questions=1, guide=guide, published=False)
    question = quiz.questions.get()
    question.choices.all().delete()
    return question


def _pair(position: int, left: tuple[str, str], right: tuple[str, str]) -> dict:
    return choice_row(position, *left, match_en=right[0], match_fr=right[1])


PAIRS = [
    _pair(1, ("All-reduce", "All-reduce"), ("Every worker gets the sum", "Chacun reçoit la somme")),
    _pair(2, ("Broadcast", "Diffusion"), ("One to all", "D’un à tous")),
    _pair(3, ("", ""), ("Each keeps its own", "Chacun garde le sien")),  # A distractor.
]


def _post(editor_client, question, rows, lang="en", **fields):
    data = question_form(question, rows, kind="matching", **fields)
    return editor_client.post(
        f"/admin/quizzes/question/{question.pk}/change/", data, HTTP_ACCEPT_LANGUAGE=lang
    )


def test_pairs_and_a_distractor_are_saved_in_both_languages(editor_client, question):
    response = _post(editor_client, question, PAIRS)
    assert response.status_code == 302, response.context["errors"]
    saved = [
        tuple(text or "" for text in row)  # An empty French text is kept as none.
        for row in question.choices.values_list("text_en", "text_fr", "match_en", "match_fr")
    ]
    assert saved == [
        ("All-reduce", "All-reduce", "Every worker gets the sum", "Chacun reçoit la somme"),
        ("Broadcast", "Diffusion", "One to all", "D’un à tous"),
        ("", "", "Each keeps its own", "Chacun garde le sien"),
    ]
    question.refresh_from_db()
    assert question.choice_problems() == []
    page = editor_client.get(f"/admin/quizzes/question/{question.pk}/change/").content.decode()
    assert 'name="choices-0-match_fr"' in page


def test_the_preview_shows_a_box_of_every_right_item_for_each_left_item(editor_client, question):
    response = _post(editor_client, question, PAIRS, _preview="Preview")
    assert response.status_code == 200
    page = response.content.decode()
    assert '<label for="preview-fr-match-1" lang="fr">All-reduce</label>' in page
    assert '<label for="preview-fr-match-2" lang="fr">Diffusion</label>' in page
    assert 'id="preview-fr-match-3"' not in page  # The distractor is only a right item.
    assert "<option selected>D’un à tous</option>" in page
    assert page.count("<option>Chacun garde le sien</option>") == 2
    assert not Choice.objects.filter(question=question).exists()


@pytest.mark.parametrize(
    ("rows", "lang", "says"),
    [
        (PAIRS[:1] + PAIRS[2:], "en", "A matching question needs at least two pairs"),
        (
            [PAIRS[0], choice_row(2, "Broadcast", "Diffusion")],
            "fr",
            "Chaque choix d’une question d’appariement demande un élément de droite (en).",
        ),
        (
            [_pair(n, (f"L{n}", ""), (f"R{n}", "")) for n in range(1, 22)],
            "en",
            "A matching question has at most 20 choices, not 21.",
        ),
    ],
    ids=["one-pair", "no-right-item", "21-choices"],
)
def test_bad_pairs_are_refused_and_change_nothing(editor_client, question, rows, lang, says):
    response = _post(editor_client, question, rows, lang)
    assert response.status_code == 200
    assert says in response.content.decode()
    assert not Choice.objects.filter(question=question).exists()


def test_a_single_choice_question_still_needs_its_choices_texts(editor_client, question):
    rows = [choice_row(1, "Right", "Juste", correct=True), choice_row(2, "", "Faux")]
    data = question_form(question, rows)
    response = editor_client.post(f"/admin/quizzes/question/{question.pk}/change/", data)
    assert response.status_code == 200
    assert not Choice.objects.filter(question=question).exists()
