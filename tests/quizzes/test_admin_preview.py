"""The question admin previews the question as learners read it, in every language, before
saving (a plain submit button: no script needed) and on the change page of a saved one."""

from django.contrib.admin.models import LogEntry

from tests.factories import make_quiz, post_question


def test_the_change_page_previews_the_saved_question(editor_client, guide):
    question = make_quiz(questions=1, choices=2, guide=guide).questions.get()
    question.prompt_en = "What does `model.no_sync()` skip?"
    question.save()
    page = editor_client.get(f"/admin/quizzes/question/{question.pk}/change/").content.decode()
    assert "Preview of the saved question" in page
    assert (
        '<div class="preview-prompt" lang="en">'
        "<p>What does <code>model.no_sync()</code> skip?</p>\n</div>" in page
    )
    assert '<div class="preview-prompt" lang="fr"><p>Énoncé de la question 1</p>\n</div>' in page
    assert 'name="_preview"' in page


def test_preview_shows_what_was_typed_and_saves_nothing(editor_client, guide):
    question = make_quiz(questions=1, choices=2, guide=guide).questions.get()
    logged = LogEntry.objects.count()
    response = post_question(
        editor_client,
        question,
        _preview="Preview",
        prompt_fr="",
        explanation_en="The effective batch is $B \\times W$:\n\n```python\nloss.backward()\n```",
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "Preview of what you typed (not saved yet)" in page
    assert "<math" in page and '<pre class="code-block" tabindex="0">' in page
    # The French prompt is empty: learners see the English one, and the preview says so.
    assert '<div class="preview-prompt" lang="en"><p>Question 1 prompt</p>\n</div>' in page
    assert "Some texts are missing in this language" in page
    assert "The effective batch is $B \\times W$:" in page  # The typed text, kept.
    question.refresh_from_db()
    assert question.prompt_fr == "Énoncé de la question 1"
    assert "effective batch" not in question.explanation_en
    assert LogEntry.objects.count() == logged


def test_preview_of_broken_text_shows_the_error(editor_client, guide):
    question = make_quiz(questions=1, choices=2, guide=guide).questions.get()
    response = post_question(
        editor_client, question, _preview="Preview", explanation_fr=r"$\def\a{\a}\a$"
    )
    assert response.status_code == 200
    [error] = response.context["adminform"].form.errors["explanation_fr"]
    assert error.startswith("explanation (fr): ")
