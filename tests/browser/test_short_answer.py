"""The demo's short-answer question in a real browser: typed right and wrong, refused, in
both languages, with the script at 320 px and without it; valid HTML at each step, and no
axe-core violation with the script."""

import re

import pytest
from playwright.sync_api import Page, expect

from quizzes.models import Answer
from tests.browser.helpers import CONTEXTS, axe_violations, t
from tests.factories import question_url

SLUG = "data-parallelism-quiz"
NUMBER = 10  # The demo quiz's short-answer question, its last.
MISTAKE = {  # *DataParallel*: a known mistake with feedback.
    "en": "is the older wrapper",
    "fr": "est l’ancienne enveloppe",
}
PROMPT = {"en": "Which PyTorch class wraps a model", "fr": "Quelle classe de PyTorch"}


def _checked(page: Page, nu_checker, html: str) -> None:
    """Valid HTML; where the page runs script, no axe violation and nothing wider than its
    320 px screen."""
    assert nu_checker.errors(html) == []
    if page.viewport_size["width"] == 320:
        assert page.evaluate("document.documentElement.scrollWidth") <= 320, page.url
        assert axe_violations(page) == []


def _open_question(page: Page, browser_attempt, nu_checker, lang: str):
    attempt = browser_attempt(answered=NUMBER - 1, lang=lang, slug=SLUG)
    response = page.goto(question_url(attempt, NUMBER, lang))
    # Its name is the prompt, then the visible "Your answer".
    field = page.get_by_role("textbox", name=PROMPT[lang])
    expect(field).to_have_attribute("spellcheck", "false")
    expect(field).to_have_attribute("autocomplete", "off")
    _checked(page, nu_checker, response.text())
    return attempt, field


def _check(page: Page, lang: str, *, scripted: bool) -> str:
    """Clicks Check answer; the HTML of the page as it is then."""
    button = page.get_by_role("button", name=t(lang, "Check answer"))
    if scripted:
        button.click()
        page.locator("#feedback").wait_for()
        return page.content()
    with page.expect_navigation() as navigation:
        button.click()
    return navigation.value.text() if navigation.value.status == 400 else page.content()


@CONTEXTS
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_short_answer_typed_right(page, browser_attempt, nu_checker, lang, request):
    scripted = "no-script" not in request.node.callspec.id
    attempt, field = _open_question(page, browser_attempt, nu_checker, lang)
    field.fill("  torch.nn.parallel.distributeddataparallel ")
    html = _check(page, lang, scripted=scripted)
    feedback = page.locator("#feedback")
    expect(feedback.locator("h2")).to_contain_text(t(lang, "Correct."))
    expect(feedback).to_contain_text("torch.nn.parallel.distributeddataparallel")
    expect(feedback.locator("li.correct:not(.picked)").first).to_have_text(
        re.compile(r"^\s*DistributedDataParallel\s")
    )
    _checked(page, nu_checker, html)
    recorded = Answer.objects.get(attempt=attempt, question__position=NUMBER)
    assert (recorded.response, recorded.is_correct) == (
        "torch.nn.parallel.distributeddataparallel",
        True,
    )


@CONTEXTS
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_short_answer_refused_then_typed_wrong(
    page, browser_attempt, nu_checker, lang, request
):
    scripted = "no-script" not in request.node.callspec.id
    attempt, field = _open_question(page, browser_attempt, nu_checker, lang)
    field.evaluate("input => input.removeAttribute('maxlength')")
    field.fill("x" * 10_000)
    with page.expect_navigation() as navigation:
        page.get_by_role("button", name=t(lang, "Check answer")).click()
    assert navigation.value.status == 400
    expect(page.locator("#choice-error")).to_contain_text("200")
    _checked(page, nu_checker, navigation.value.text())
    assert not Answer.objects.filter(attempt=attempt, question__position=NUMBER).exists()

    field = page.get_by_role("textbox", name=PROMPT[lang])
    field.fill("nn.DataParallel")
    html = _check(page, lang, scripted=scripted)
    feedback = page.locator("#feedback")
    expect(feedback.locator("h2")).to_contain_text(t(lang, "Not quite."))
    expect(feedback).to_contain_text(MISTAKE[lang])
    expect(feedback).to_contain_text("DistributedDataParallel")  # The expected answer.
    _checked(page, nu_checker, html)
    recorded = Answer.objects.get(attempt=attempt, question__position=NUMBER)
    assert (recorded.response, recorded.is_correct) == ("nn.DataParallel", False)
