"""Rendering has a budget: code is highlighted only in lexers that stay fast on hostile input,
a quiz whose pages would render past `MAX_QUIZ_SOURCE_LENGTH` is refused at save and import,
and a page renders the texts it shows, not the whole quiz's."""

from collections import Counter

import pytest
from pygments.lexers import get_lexer_by_name

from quizzes.interchange.importing import quiz_import
from quizzes.interchange.quizfile import QuizFileError, quiz_export
from quizzes.markup.rendering import HIGHLIGHTED_LEXERS, MAX_QUIZ_SOURCE_LENGTH, render
from quizzes.models import Choice, Question, Quiz
from quizzes.snapshots import markdown_lengths, saved_markdown_lengths
from tests.factories import (
    choice_row,
    content_of,
    inline_data,
    make_quiz,
    post_question,
    question_form,
    question_url,
    quiz_form,
    start,
)

# One question's prompt: a quiz of `FULL` such questions (with the factory's explanation and
# choices, about 65 characters more) is just within the budget, by less than one long text.
PROMPT_LENGTH = 2_500
FULL = MAX_QUIZ_SOURCE_LENGTH // (PROMPT_LENGTH + 65)
LONG = "more " * 590


def _spans(html: str) -> int:
    return html.count("<span class=")


def test_highlighted_lexers_are_pygments_first_aliases():
    for alias in HIGHLIGHTED_LEXERS:
        assert get_lexer_by_name(alias).aliases[0] == alias


@pytest.mark.parametrize("fence", ["python", "py", "python3", "bash", "sh", "yaml", "cpp"])
def test_code_in_a_kept_lexer_is_highlighted_by_any_of_its_names(fence):
    html = render(f"```{fence}\nx = f(1)  # one\n```", language="en").html
    assert _spans(html) > 0


@pytest.mark.parametrize("fence", ["java", "csharp", "make", "mcschema", "no-such-language"])
def test_code_in_a_slow_or_unknown_lexer_shows_unhighlighted(fence):
    html = render(f"```{fence}\nint x = f(1);\n```", language="en").html
    assert '<pre class="code-block" tabindex="0"><code>int x = f(1);\n</code></pre>' in html
    assert _spans(html) == 0


def _long_quiz(questions: int, **fields) -> Quiz:
    """A quiz whose prompts are `PROMPT_LENGTH` characters, in English only."""
    quiz = make_quiz(slug="long-quiz", questions=questions, choices=2, french=False, **fields)
    Question.objects.filter(quiz=quiz).update(prompt_en="word " * (PROMPT_LENGTH // 5))
    return quiz


def _lengths(quiz: Quiz):
    questions = Question.objects.filter(quiz=quiz)
    return (
        saved_markdown_lengths(Quiz.objects.filter(pk=quiz.pk))
        + saved_markdown_lengths(questions)
        + saved_markdown_lengths(Choice.objects.filter(question__in=questions))
    )


def test_the_database_counts_characters_as_python_does_a_missing_language_as_the_default(db):
    quiz = make_quiz(questions=2, choices=2)
    question = quiz.questions.first()
    question.prompt_en = "Gradients “summed” — ∑ 😀 é"
    question.prompt_fr = ""  # A French page shows the English.
    question.save()
    rows = [
        *Quiz.objects.filter(pk=quiz.pk),
        *Question.objects.filter(quiz=quiz),
        *Choice.objects.filter(question__quiz=quiz),
    ]
    expected = sum((markdown_lengths(type(row), vars(row)) for row in rows), start=Counter())
    assert _lengths(quiz) == expected
    english, french = expected["en"], expected["fr"]
    assert english > 0 and french > 0
    question.prompt_fr = "x"
    question.save()
    assert _lengths(quiz)["fr"] == french - len(question.prompt_en) + 1
    assert _lengths(quiz)["en"] == english


def test_the_question_admin_refuses_what_takes_the_quiz_past_the_budget(editor_client, guide):
    quiz = _long_quiz(FULL, guide=guide)
    assert 0 < MAX_QUIZ_SOURCE_LENGTH - _lengths(quiz)["en"] < len(LONG)
    question = quiz.questions.first()
    before = question.explanation_en

    response = post_question(editor_client, question, explanation_en=LONG)

    assert response.status_code == 200
    errors = response.context["inline_admin_formsets"][0].formset.non_form_errors()
    assert "English: this quiz's texts would hold" in errors[0]
    assert "Move some questions to another quiz." in errors[0]
    question.refresh_from_db()
    assert question.explanation_en == before
    # The French page shows this question's own French explanation, a short one.
    assert len(errors) == 1

    assert post_question(editor_client, question, explanation_en="Short.").status_code == 302


def test_a_new_question_in_the_quiz_admin_inline_is_refused_past_the_budget(editor_client, guide):
    quiz = _long_quiz(FULL, guide=guide, published=False)
    questions = list(quiz.questions.all())
    rows = [
        {"id": q.pk, "quiz": quiz.pk, "position": q.position, "prompt_en": q.prompt_en}
        | {"prompt_fr": "", "kind": "single"}
        for q in questions
    ]
    data = quiz_form(guide, slug=quiz.slug, title_en=quiz.title_en)
    new_row = {"position": FULL + 1, "prompt_en": LONG, "prompt_fr": "", "kind": "single"}
    post = data | inline_data("questions", [*rows, new_row], initial=len(rows))

    response = editor_client.post(f"/admin/quizzes/quiz/{quiz.pk}/change/", post)

    assert response.status_code == 200
    errors = response.context["inline_admin_formsets"][0].formset.non_form_errors()
    assert any("this quiz's texts would hold" in error for error in errors)
    assert quiz.questions.count() == FULL
    # Without the new question, or with another one deleted, it saves.
    deleted = rows[0] | {"DELETE": "on"}
    post = data | inline_data("questions", [deleted, *rows[1:], new_row], initial=len(rows))
    response = editor_client.post(f"/admin/quizzes/quiz/{quiz.pk}/change/", post)
    assert response.status_code == 302
    assert quiz.questions.count() == FULL


def test_the_importer_refuses_a_quiz_past_the_budget_and_writes_nothing(db, guide):
    quiz = _long_quiz(FULL, guide=guide)
    data = quiz_export(quiz=quiz)
    quiz_import(data=data)  # Within the budget: it imports.
    explanation = quiz.questions.first().explanation_en
    data["questions"][0]["explanation"] = {"en": "Short.", "fr": LONG}
    quiz.refresh_from_db()
    before = quiz.updated_at

    with pytest.raises(QuizFileError) as error:
        quiz_import(data=data)

    messages = error.value.messages
    assert [m for m in messages if "this quiz's texts" in m] == [
        "quiz: French: this quiz's texts would hold "
        f"{_lengths(quiz)['fr'] - len(explanation) + len(LONG):,} characters together; "
        f"a quiz's pages show {MAX_QUIZ_SOURCE_LENGTH:,} at most. "
        "Move some questions to another quiz."
    ]
    quiz.refresh_from_db()
    assert quiz.updated_at == before


def test_the_admin_message_is_in_french_with_french_numbers(editor_client, guide):
    quiz = _long_quiz(FULL, guide=guide)
    question = quiz.questions.first()
    data = question_form(
        question,
        [
            choice_row(1, "Right", "Juste", correct=True) | {"id": c.pk, "question": question.pk}
            for c in question.choices.all()[:1]
        ]
        + [choice_row(2, "Wrong", "Faux") | {"id": question.choices.all()[1].pk}],
        initial=2,
        explanation_en=LONG,
    )
    response = editor_client.post(
        f"/admin/quizzes/question/{question.pk}/change/", data, headers={"accept-language": "fr"}
    )
    errors = response.context["inline_admin_formsets"][0].formset.non_form_errors()
    limit = f"{MAX_QUIZ_SOURCE_LENGTH:,}".replace(",", "\u00a0")  # As Django writes French.
    assert any(
        error.startswith("Anglais\u00a0: les textes de ce quiz") and limit in error
        for error in errors
    )


def test_a_question_page_renders_its_own_texts_not_the_whole_quiz(client, quiz):
    content = content_of(quiz)
    prompts = [question.prompt for question in content.questions]
    assert all(not prompt._rendered for prompt in prompts)  # Reading the content renders none.

    attempt = start(client, quiz)
    assert client.get(question_url(attempt, 1)).status_code == 200

    content = content_of(quiz)
    assert set(content.questions[0].prompt._rendered) == {"en", "fr"}
    assert [q.prompt._rendered for q in content.questions[1:]] == [{}] * 7
    assert all(not q.explanation._rendered for q in content.questions[1:])
