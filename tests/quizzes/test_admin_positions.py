"""Positions are given, not typed: a new question or choice goes after the last one, and the
inlines reorder by dragging or the keyboard (django-admin-sortable2 and admin-reorder.js)
through a hidden position field."""

import re

from tests.factories import choice_row, inline_data, make_quiz, question_form


def test_inlines_are_sortable_with_hidden_positions_and_keyboard_buttons(editor_client, quiz):
    html = editor_client.get(f"/admin/quizzes/quiz/{quiz.pk}/change/").content.decode()
    assert re.search(r'<fieldset class="module [^"]*\bsortable\b', html)
    assert 'type="hidden" name="questions-0-position" value="1" class="_reorder_"' in html
    script = re.search(r'<script src="/static/quizsite/admin-reorder.js"[^>]*>', html).group()
    assert 'data-up="Move up"' in script and 'data-down="Move down"' in script
    question = quiz.questions.first()
    html = editor_client.get(f"/admin/quizzes/question/{question.pk}/change/").content.decode()
    assert 'type="hidden" name="choices-0-position" value="1" class="_reorder_"' in html


def test_french_editor_gets_the_buttons_in_french(editor_client, quiz):
    html = editor_client.get(
        f"/admin/quizzes/quiz/{quiz.pk}/change/", headers={"accept-language": "fr"}
    ).content.decode()
    script = re.search(r'<script src="/static/quizsite/admin-reorder.js"[^>]*>', html).group()
    assert 'data-up="Monter"' in script and 'data-down="Descendre"' in script


def test_new_choices_go_after_the_last_without_a_position(editor_client, guide):
    quiz = make_quiz(guide=guide, questions=1, choices=2, published=False)
    question = quiz.questions.get()
    saved = [
        choice_row(1, "Right", "Juste", correct=True) | {"id": c.pk, "question": question.pk}
        if c.position == 1
        else choice_row(2, "Wrong", "Faux") | {"id": c.pk, "question": question.pk}
        for c in question.choices.all()
    ]
    added = [choice_row("", "Also wrong", "Faux aussi"), choice_row("", "Last", "Dernier")]
    data = question_form(question, saved + added, initial=2)
    response = editor_client.post(f"/admin/quizzes/question/{question.pk}/change/", data)
    assert response.status_code == 302, response.context["errors"]
    assert [(c.position, c.text_en) for c in question.choices.all()] == [
        (1, "Right"),
        (2, "Wrong"),
        (3, "Also wrong"),
        (4, "Last"),
    ]


def test_reordered_rows_save_in_their_new_order(editor_client, guide):
    quiz = make_quiz(guide=guide, questions=1, choices=3, published=False)
    question = quiz.questions.get()
    first, second, third = question.choices.all()
    rows = [
        choice_row(3, first.text_en, "", correct=True) | {"id": first.pk},
        choice_row(1, second.text_en, "") | {"id": second.pk},
        choice_row(2, third.text_en, "") | {"id": third.pk},
    ]
    data = question_form(question, rows, initial=3)
    response = editor_client.post(f"/admin/quizzes/question/{question.pk}/change/", data)
    assert response.status_code == 302
    assert list(question.choices.values_list("pk", flat=True)) == [second.pk, third.pk, first.pk]


def test_question_added_on_its_own_page_goes_after_the_quiz_s_last(editor_client, guide):
    quiz = make_quiz(guide=guide, questions=3, published=False)
    question = quiz.questions.first()
    choices = [choice_row("", "Right", "Juste", correct=True), choice_row("", "Wrong", "Faux")]
    data = question_form(question, choices, position="", prompt_en="A fourth one?")
    response = editor_client.post("/admin/quizzes/question/add/", data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    added = quiz.questions.get(prompt_en="A fourth one?")
    assert added.position == 4
    assert [c.position for c in added.choices.all()] == [1, 2]


def test_question_added_in_the_quiz_inline_goes_last(editor_client, guide):
    quiz = make_quiz(guide=guide, questions=2, published=False)
    saved = [
        {"id": q.pk, "quiz": quiz.pk, "position": q.position, "prompt_en": q.prompt_en}
        | {"prompt_fr": q.prompt_fr, "kind": "single"}
        for q in quiz.questions.all()
    ]
    new = {"position": "", "prompt_en": "Third?", "prompt_fr": "", "kind": "single"}
    data = (
        {
            "title_en": quiz.title_en,
            "title_fr": quiz.title_fr,
            "slug": quiz.slug,
            "level": quiz.level,
            "pass_mark": "70",
        }
        | inline_data("questions", [*saved, new], initial=2)
        | inline_data("embed_origins", [])
    )
    response = editor_client.post(f"/admin/quizzes/quiz/{quiz.pk}/change/", data)
    assert response.status_code == 302, response.context["errors"]
    assert quiz.questions.get(prompt_en="Third?").position == 3
