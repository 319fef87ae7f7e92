import re

from quizzes.models import Quiz
from tests.factories import choice_row, inline_data, make_quiz, question_form, quiz_form

QUIZ_ADD = "/admin/quizzes/quiz/add/"


def test_editor_creates_a_quiz_with_questions_and_choices_in_both_languages(editor_client, guide):
    questions = [
        {
            "position": 1,
            "prompt_en": "What is summed?",
            "prompt_fr": "Qu'additionne-t-on ?",
            "kind": "single",
        },
        {
            "position": 2,
            "prompt_en": "When to step?",
            "prompt_fr": "Quand faire un pas ?",
            "kind": "single",
        },
    ]
    response = editor_client.post(QUIZ_ADD, quiz_form(guide) | inline_data("questions", questions))
    assert response.status_code == 302, response.context["adminform"].form.errors
    quiz = Quiz.objects.get(slug="gradient-accumulation-quiz")
    assert quiz.title_fr == "Quiz sur l'accumulation de gradients"
    assert list(quiz.guide_paths.all()) == [guide]
    assert [q.prompt_fr for q in quiz.questions.all()] == [
        "Qu'additionne-t-on ?",
        "Quand faire un pas ?",
    ]

    question = quiz.questions.get(position=1)
    choices = [
        choice_row(1, "Gradients", "Les gradients", correct=True),
        choice_row(
            2,
            "Weights",
            "Les poids",
            feedback_en="Weights don't add up.",
            feedback_fr="Les poids ne s'additionnent pas.",
        ),
    ]
    url = f"/admin/quizzes/question/{question.pk}/change/"
    response = editor_client.post(url, question_form(question, choices))
    assert response.status_code == 302
    assert [(c.text_en, c.text_fr, c.is_correct) for c in question.choices.all()] == [
        ("Gradients", "Les gradients", True),
        ("Weights", "Les poids", False),
    ]
    assert question.choices.get(position=2).feedback_fr == "Les poids ne s'additionnent pas."
    question.refresh_from_db()
    assert question.explanation_fr == "Les gradients s'additionnent sur les micro-lots."


def test_quiz_page_lists_questions_in_order_with_links_to_edit_them(editor_client, quiz):
    response = editor_client.get(f"/admin/quizzes/quiz/{quiz.pk}/change/")
    html = response.content.decode()
    assert response.status_code == 200
    assert (
        html.index("Question 1 prompt")
        < html.index("Question 2 prompt")
        < html.index("Question 8 prompt")
    )
    for question in quiz.questions.all():
        assert f"/admin/quizzes/question/{question.pk}/change/" in html
    assert 'href="/admin/r/' in html  # View on site


def test_swapping_positions_reorders_the_quiz_on_the_site(editor_client, guide):
    quiz = make_quiz(questions=2, guide=guide)
    first, second = quiz.questions.all()
    rows = [
        {
            "id": first.pk,
            "quiz": quiz.pk,
            "position": 2,
            "prompt_en": first.prompt_en,
            "prompt_fr": first.prompt_fr,
            "kind": "single",
        },
        {
            "id": second.pk,
            "quiz": quiz.pk,
            "position": 1,
            "prompt_en": second.prompt_en,
            "prompt_fr": second.prompt_fr,
            "kind": "single",
        },
    ]
    data = quiz_form(guide, title_en=quiz.title_en, slug=quiz.slug, is_published="on")
    response = editor_client.post(
        f"/admin/quizzes/quiz/{quiz.pk}/change/", data | inline_data("questions", rows, initial=2)
    )
    assert response.status_code == 302, response.context["inline_admin_formsets"][0].formset.errors
    assert list(quiz.questions.values_list("pk", flat=True)) == [second.pk, first.pk]
    page = editor_client.get("/en/quizzes/dp-quiz/").content.decode()
    assert page.index("Question 2 prompt") < page.index("Question 1 prompt")


def test_single_choice_question_needs_two_choices_and_exactly_one_correct(editor_client, quiz):
    question = quiz.questions.create(position=9, prompt_en="New one")
    url = f"/admin/quizzes/question/{question.pk}/change/"
    cases = [
        ([choice_row(1, "Only", "Seule", correct=True)], "A question needs at least two choices."),
        ([choice_row(1, "A", "A"), choice_row(2, "B", "B")], "Mark exactly one choice as correct."),
        (
            [choice_row(1, "A", "A", correct=True), choice_row(2, "B", "B", correct=True)],
            "Mark exactly one choice as correct.",
        ),
    ]
    for choices, message in cases:
        response = editor_client.post(url, question_form(question, choices))
        assert response.status_code == 200
        assert message in response.content.decode()
    assert not question.choices.exists()


def test_duplicate_choice_positions_are_refused(editor_client, quiz):
    question = quiz.questions.create(position=9, prompt_en="New one")
    choices = [choice_row(1, "A", "A", correct=True), choice_row(1, "B", "B")]
    response = editor_client.post(
        f"/admin/quizzes/question/{question.pk}/change/", question_form(question, choices)
    )
    assert response.status_code == 200
    assert "Please correct the duplicate data for position" in response.content.decode()
    assert not question.choices.exists()


def test_quiz_without_questions_or_with_an_invalid_one_cant_be_published(editor_client, guide):
    response = editor_client.post(
        QUIZ_ADD, quiz_form(guide, is_published="on") | inline_data("questions", [])
    )
    assert response.status_code == 200
    assert "Add at least one question before publishing." in response.content.decode()
    assert not Quiz.objects.exists()

    quiz = make_quiz(questions=2, guide=guide, published=False)
    quiz.questions.get(position=2).choices.update(is_correct=False)
    data = quiz_form(guide, title_en=quiz.title_en, slug=quiz.slug, is_published="on")
    rows = [
        {
            "id": q.pk,
            "quiz": quiz.pk,
            "position": q.position,
            "prompt_en": q.prompt_en,
            "kind": "single",
        }
        for q in quiz.questions.all()
    ]
    response = editor_client.post(
        f"/admin/quizzes/quiz/{quiz.pk}/change/", data | inline_data("questions", rows, initial=2)
    )
    assert response.status_code == 200
    assert "question 2: Mark exactly one choice as correct." in response.content.decode()
    quiz.refresh_from_db()
    assert not quiz.is_published


def test_slug_must_be_unique_and_readable(editor_client, quiz, guide):
    for slug, message in [
        ("dp-quiz", "Quiz with this Slug already exists."),
        ("Not a slug!", "Enter a valid “slug”"),
    ]:
        response = editor_client.post(
            QUIZ_ADD, quiz_form(guide, slug=slug) | inline_data("questions", [])
        )
        assert response.status_code == 200
        assert message in response.content.decode()
    html = editor_client.get(QUIZ_ADD).content.decode()
    assert "prepopulated_fields" in html or "data-prepopulated-fields" in html


def test_languages_sit_side_by_side_with_scripts_from_this_site(editor_client, quiz):
    html = editor_client.get(f"/admin/quizzes/quiz/{quiz.pk}/change/").content.decode()
    # One line of the form each (Django 6 adds the line's flex classes to the row's).
    for field in ("title", "description"):
        assert re.search(rf'<div class="form-row[^"]* field-{field}_en field-{field}_fr"', html)
    question = quiz.questions.first()
    html = editor_client.get(f"/admin/quizzes/question/{question.pk}/change/").content.decode()
    for field in ("prompt", "explanation", "guide_url"):
        assert re.search(rf'<div class="form-row[^"]* field-{field}_en field-{field}_fr"', html)
    assert "tabbed_translation_fields" not in html
    assert 'src="//' not in html and 'src="http' not in html


def test_editor_keeps_a_questions_choice_order_in_its_form_and_the_quiz_inline(
    editor_client, guide
):
    quiz = make_quiz(questions=1, guide=guide, shuffle_choices=True)
    question = quiz.questions.create(position=2, prompt_en="Which, if any?")
    url = f"/admin/quizzes/question/{question.pk}/change/"
    assert 'name="keep_choice_order"' in editor_client.get(url).content.decode()
    choices = [choice_row(1, "A", "A", correct=True), choice_row(2, "B", "B")]
    response = editor_client.post(url, question_form(question, choices, keep_choice_order="on"))
    assert response.status_code == 302
    question.refresh_from_db()
    assert question.keep_choice_order
    html = editor_client.get(f"/admin/quizzes/quiz/{quiz.pk}/change/").content.decode()
    inputs = re.findall(r'<input type="checkbox" name="questions-\d-keep_choice_order"[^>]*>', html)
    assert [tag.endswith(" checked>") for tag in inputs] == [False, True]
