"""A multiple-choice question with partial credit in a real browser: ticked half right, in
both languages, with the script at 320 px and without it; the feedback and the results say
"partly right" with its share and the score is a fraction. Valid HTML at each step, and no
axe-core violation with the script."""

import pytest
from playwright.sync_api import Page, expect

from quizzes.models import Answer, Attempt
from tests.browser.helpers import CONTEXTS, axe_violations, t
from tests.factories import make_multiple, make_quiz

NNBSP = "\u202f"
HALF = {"en": "50%", "fr": f"50{NNBSP}%"}
SCORE = {"en": "1.5 / 2", "fr": "1,5 / 2"}


@pytest.fixture
def quiz(transactional_db):
    """Question 1: multiple choice with partial credit (choices 1 and 2 right, 3 and 4
    wrong); question 2: single choice (choice 1 right)."""
    quiz = make_quiz(slug="partial", questions=2)
    question = make_multiple(quiz, 1)
    question.partial_credit = True
    question.save()
    return quiz


def _checked(page: Page, nu_checker, html: str, *, scripted: bool) -> None:
    assert nu_checker.errors(html) == []
    if scripted:
        width = page.viewport_size["width"]
        assert page.evaluate("document.documentElement.scrollWidth") <= width, page.url
        assert axe_violations(page) == []


def _submit(page: Page, name: str, *, scripted: bool, wait: str) -> str:
    """Clicks the button; the HTML of the page it leads to."""
    button = page.get_by_role("button", name=name)
    if scripted:
        button.click()
        page.locator(wait).wait_for()
        return page.content()
    with page.expect_navigation():
        button.click()
    return page.content()


@CONTEXTS
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_half_right_multiple_choice_answer_scores_half(
    page, live_server, quiz, nu_checker, lang, request
):
    scripted = "no-script" not in request.node.callspec.id
    page.goto(f"{live_server.url}/{lang}/quizzes/{quiz.slug}/")
    html = _submit(page, t(lang, "Start the quiz"), scripted=scripted, wait="#prompt")
    rule = "Each correct choice you tick earns its share of the mark, and each wrong one takes "
    expect(page.locator("#choice-instruction")).to_contain_text(t(lang, rule + "a share away."))
    _checked(page, nu_checker, html, scripted=scripted)
    page.get_by_role("checkbox", name=("Q1 choix 1" if lang == "fr" else "Q1 choice 1")).check()
    html = _submit(page, t(lang, "Check answer"), scripted=scripted, wait="#feedback")
    verdict = t(lang, "Partly right: %(credit)s of the mark.", credit=HALF[lang])
    expect(page.locator("#feedback h2")).to_contain_text(verdict)
    _checked(page, nu_checker, html, scripted=scripted)

    next_link = page.get_by_role("link", name=t(lang, "Next question"))
    if scripted:
        next_link.click()
        page.locator("#prompt").wait_for()
    else:
        with page.expect_navigation():
            next_link.click()
    page.get_by_role("radio", name=("Q2 choix 1" if lang == "fr" else "Q2 choice 1")).check()
    _submit(page, t(lang, "Check answer"), scripted=scripted, wait="#feedback")
    results = page.get_by_role("link", name=t(lang, "See your results"))
    if scripted:
        results.click()
        page.locator("#score").wait_for()
    else:
        with page.expect_navigation():
            results.click()
    expect(page.locator("#score")).to_contain_text(SCORE[lang])
    expect(page.locator(".summary")).to_contain_text(
        t(lang, "Partly right (%(credit)s)", credit=HALF[lang])
    )
    _checked(page, nu_checker, page.content(), scripted=scripted)
    attempt = Attempt.objects.get(quiz=quiz)
    assert str(attempt.score.normalize()) == "1.5"
    assert str(Answer.objects.get(attempt=attempt, question__position=1).credit) == "0.50000"
