"""Hostile or broken Markdown sent through the admin and the importer: refused with a message
naming the field and language, or saved harmless; the learner pages never break."""

import pytest

from quizzes.interchange.importing import quiz_import
from quizzes.interchange.quizfile import (
    QuizFileError,
    quiz_export,
    quiz_file_dump,
    quiz_file_read,
)
from tests.factories import answer, choice_of, make_quiz, post_question, question_url, start

# (source, what must not reach the page) for input that is saved and made harmless.
HARMLESS = {
    "script": ("<script>alert(1)</script> and text", "<script>alert"),
    "img-onerror": ('<img src="x" onerror="alert(1)">', "<img src"),
    "javascript-link": ("[click](javascript:alert(1))", 'href="javascript'),
    "data-link": ("[data](data:text/html;base64,PHNjcmlwdD4=)", 'href="data'),
    "unclosed-fence": ("```python\nprint('never closed')\n", "<script"),
}
# Input that is refused, with words of the message the editor reads.
REFUSED = {
    "nested-lists": ("- " * 10_000 + "deep", "characters long; the limit is"),
    "huge-formula": ("$" + "x" * 1_000_000 + "$", "characters long; the limit is"),
    "looping-macro": (r"$\def\a{\a\a}\a$", "defines a macro"),
}


def _learner_pages(client, quiz) -> list[str]:
    attempt = start(client, quiz)
    pages = [
        client.get(f"/en/quizzes/{quiz.slug}/"),
        client.get(question_url(attempt, 1)),
    ]
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    pages.append(client.get(question_url(attempt, 1)))
    assert all(page.status_code == 200 for page in pages)
    return [page.content.decode() for page in pages]


@pytest.mark.parametrize("field", ["prompt_en", "explanation_fr"])
@pytest.mark.parametrize("case", HARMLESS, ids=str)
def test_harmless_input_is_saved_and_shows_as_text(editor_client, client, guide, case, field):
    quiz = make_quiz(questions=1, choices=2, guide=guide)
    source, forbidden = HARMLESS[case]
    question = quiz.questions.get()
    response = post_question(editor_client, question, **{field: source})
    assert response.status_code == 302, response.context["adminform"].form.errors
    question.refresh_from_db()
    assert getattr(question, field) == source.strip()
    client.logout()
    for page in _learner_pages(client, quiz):
        assert forbidden not in page.split("<main", 1)[1]  # The head has the site's script.


@pytest.mark.parametrize("field", ["prompt_en", "explanation_fr"])
@pytest.mark.parametrize("case", REFUSED, ids=str)
def test_broken_input_is_refused_in_the_admin(editor_client, client, guide, case, field):
    quiz = make_quiz(questions=1, choices=2, guide=guide)
    source, words = REFUSED[case]
    question = quiz.questions.get()
    response = post_question(editor_client, question, **{field: source})
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors[field]
    name, code = field.split("_")
    assert errors[0].startswith(f"{name} ({code}): ") and words in errors[0]
    question.refresh_from_db()
    assert getattr(question, field) != source
    client.logout()
    assert all("Question 1 prompt" in page for page in _learner_pages(client, quiz))


@pytest.mark.parametrize("case", {**HARMLESS, **REFUSED}, ids=str)
def test_the_importer_refuses_or_keeps_harmless(client, guide, case):
    quiz = make_quiz(questions=1, choices=2, guide=guide)
    data = quiz_export(quiz=quiz)
    source, expected = {**HARMLESS, **REFUSED}[case]
    data["questions"][0]["prompt"]["fr"] = source
    data["questions"][0]["choices"][1]["feedback"] = {"en": source}
    content = quiz_file_dump(data).encode()
    if case in REFUSED:
        with pytest.raises(QuizFileError) as error:
            quiz_import(data=quiz_file_read(content=content))
        messages = error.value.messages
        assert any(m.startswith("question 1: prompt (fr): ") and expected in m for m in messages)
        assert any(m.startswith("question 1, choice 2: feedback (en): ") for m in messages)
    else:
        quiz_import(data=quiz_file_read(content=content))
        for page in _learner_pages(client, quiz):
            assert expected not in page.split("<main", 1)[1]
