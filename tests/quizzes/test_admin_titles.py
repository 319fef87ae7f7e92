"""Titles in the admin are plain text: the first line of a Markdown text with its markup
stripped, on the lists, the change pages' headings and breadcrumbs, the inlines, the
messages and the delete pages."""

import re

import pytest

from quizzes.markup.rendering import plain_title
from tests.factories import make_quiz, post_question

CODE_PROMPT = "```python\nfor row in zip(*rows):\n    print(row)\n```\n\nWhat does this print?"
MARKUP = re.compile(r"`|\*\*|```|\$")


@pytest.fixture
def marked_quiz(guide):
    quiz = make_quiz(guide=guide, questions=2, title_en="The `zip` **quiz**")
    first, second = quiz.questions.all()
    first.prompt_en = "What does `zip(*rows)` return, for $n$ rows?"
    first.save()
    second.prompt_en = CODE_PROMPT
    second.save()
    second.choices.filter(position=1).update(text_en="*Tuples*, one per `column`")
    return quiz


@pytest.mark.parametrize(
    ("source", "plain"),
    [
        ("What does `zip(*rows)` return?", "What does zip(*rows) return?"),
        (CODE_PROMPT, "for row in zip(*rows):"),
        ("**Bold**, _it_, ~~gone~~, [linked](https://example.org)", "Bold, it, gone, linked"),
        ("# A heading\n\nThe text.", "A heading"),
        ("- *one*\n- two", "one"),
        ("When is $k > 1$?", "When is k > 1?"),
        ("First line\nsecond line", "First line second line"),
    ],
)
def test_plain_title_strips_the_markdown(source, plain):
    assert plain_title(source) == plain


def test_plain_title_of_a_long_text_ends_with_an_ellipsis():
    title = plain_title("word " * 200)
    assert len(title) == 100
    assert title.endswith("…")


def test_lists_name_quizzes_and_questions_without_markdown(editor_client, marked_quiz):
    quizzes = editor_client.get("/admin/quizzes/quiz/").content.decode()
    assert ">The zip quiz</a>" in quizzes
    questions = editor_client.get("/admin/quizzes/question/").content.decode()
    assert ">What does zip(*rows) return, for n rows?</a>" in questions
    assert ">for row in zip(*rows):</a>" in questions
    assert "`" not in questions and "```" not in quizzes


def _heading_and_breadcrumbs(html: str) -> str:
    subtitle = re.search(r'<div id="content"[^>]*>.*?<h2>(.*?)</h2>', html, re.S).group(1)
    crumbs = re.search(r'class="breadcrumbs">(.*?)</(?:div|ol)>', html, re.S).group(1)
    return subtitle + crumbs


def test_change_pages_head_and_crumb_with_plain_titles(editor_client, marked_quiz):
    question = marked_quiz.questions.get(position=2)
    quiz_page = editor_client.get(f"/admin/quizzes/quiz/{marked_quiz.pk}/change/")
    html = quiz_page.content.decode()
    assert "The zip quiz" in _heading_and_breadcrumbs(html)
    assert not MARKUP.search(_heading_and_breadcrumbs(html))
    # The questions inline names each saved question by its plain title.
    assert "What does zip(*rows) return, for n rows?" in html
    question_page = editor_client.get(f"/admin/quizzes/question/{question.pk}/change/")
    html = question_page.content.decode()
    assert "for row in zip(*rows):" in _heading_and_breadcrumbs(html)
    assert not MARKUP.search(_heading_and_breadcrumbs(html))
    assert "Tuples, one per column" in html  # The choices inline.
    assert "<title>for row in zip(*rows): | " in html


def test_saved_message_and_delete_page_use_plain_titles(editor_client, marked_quiz):
    question = marked_quiz.questions.get(position=1)
    response = post_question(editor_client, question, prompt_en="Is `x` **bold**?")
    assert response.status_code == 302
    page = editor_client.get(response.url).content.decode()
    message = re.search(r'<ul class="messagelist">(.*?)</ul>', page, re.S).group(1)
    assert ">Is x bold?</a>” was changed" in message
    delete = editor_client.get(f"/admin/quizzes/quiz/{marked_quiz.pk}/delete/").content.decode()
    assert "The zip quiz" in delete
    assert "`zip`" not in delete and "**" not in delete
