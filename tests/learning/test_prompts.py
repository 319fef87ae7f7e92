"""A prompt is block content: code, lists and maths keep their layout wherever it is read,
and where a question is only named (a link to its review, a report's heading) its first line
stands for it."""

import pytest

from tests.factories import (
    answer,
    choice_of,
    make_quiz,
    make_staff,
    question_url,
    results_url,
    start,
)

pytestmark = pytest.mark.django_db

PROMPT = (
    "What does this code print?\n\n"
    "```python\nfor step in range(2):\n    print(step)\n```\n\n"
    "- one line per step\n- $n$ steps"
)
CODE = '<pre class="code-block" tabindex="0"><code><span class="k">for</span>'
INDENTED = '    <span class="nb">print</span>'


@pytest.fixture
def quiz(guide):
    quiz = make_quiz(slug="code", questions=2, guide=guide)
    question = quiz.questions.get(position=1)
    question.prompt_en = PROMPT
    question.prompt_fr = "Qu'affiche ce code ?\n\n```python\nprint(1)\n```"
    question.save()
    return quiz


def _prompt_block(page: str) -> str:
    start_at = page.index('class="prompt rich"')
    return page[start_at : page.index("</div>", start_at)]


def test_the_question_labels_its_fieldset_with_the_whole_prompt(client, quiz):
    attempt = start(client, quiz)
    page = client.get(question_url(attempt, 1)).content.decode()
    assert "<legend" not in page
    assert '<fieldset aria-labelledby="prompt">' in page
    prompt = _prompt_block(page)
    assert 'id="prompt"' in prompt and "<p>What does this code print?</p>" in prompt
    assert CODE in prompt and INDENTED in prompt
    assert "<ul>\n<li>one line per step</li>" in prompt and "<math" in prompt


def test_the_feedback_the_review_and_the_preview_keep_the_code(client, quiz):
    assert CODE in client.get("/en/quizzes/code/").content.decode()
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    assert CODE in _prompt_block(client.get(question_url(attempt, 1)).content.decode())
    answer(client, attempt, 2, choice_of(quiz, 2, correct=False))
    results = client.get(results_url(attempt)).content.decode()
    assert INDENTED in _prompt_block(results)
    # The line per question links to the review by the prompt's first line alone.
    assert '#review-1">What does this code print?</a>' in results


def test_french_names_the_question_by_its_first_line_with_french_typography(client, quiz):
    attempt = start(client, quiz, "fr")
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True), lang="fr")
    answer(client, attempt, 2, choice_of(quiz, 2, correct=True), lang="fr")
    results = client.get(results_url(attempt, "fr")).content.decode()
    assert '#review-1">Qu’affiche ce code\u202f?</a>' in results


def test_the_report_heads_each_question_with_its_first_line(client, quiz):
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    client.force_login(make_staff("ina", "Instructors"))
    page = client.get("/en/reports/quizzes/code/").content.decode()
    assert "<span>What does this code print?</span></h3>" in page
    assert "for step in range" not in page
