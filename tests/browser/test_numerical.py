"""The demo's numerical question in a real browser: typed right and wrong, refused, in both
languages, with the script at 320 px and without it; valid HTML at each step, and no
axe-core violation with the script."""

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from quizzes.interchange.importing import quiz_import
from quizzes.interchange.quizfile import quiz_file_read
from quizzes.models import Answer
from tests.browser.helpers import CONTEXTS, axe_violations, t
from tests.factories import question_url

SLUG = "gradient-accumulation-quiz"
NUMBER = 8  # The demo quiz's numerical question, its last.
NBSP = "\u00a0"
RIGHT = {"en": "1,024", "fr": "1 024"}
SHOWN = {"en": "1,024", "fr": f"1{NBSP}024"}
MISTAKE = {  # 32, one worker's microbatch: a known mistake with feedback.
    "en": "That is one worker's microbatch",
    "fr": "C’est le micro-lot d’un seul nœud",
}


def _checked(page: Page, nu_checker, html: str) -> None:
    """Valid HTML; where the page runs script (axe-core and the width check run in the
    page, which a page without script can't), no axe violation and nothing wider than its
    320 px screen."""
    assert nu_checker.errors(html) == []
    if _scripted(page):
        width = page.viewport_size["width"]
        assert page.evaluate("document.documentElement.scrollWidth") <= width, page.url
        assert axe_violations(page) == []


def _scripted(page: Page) -> bool:
    """The script-320px runs (the no-script ones keep the wide default screen)."""
    return page.viewport_size["width"] == 320


def _open_question(page: Page, browser_attempt, nu_checker, lang: str):
    attempt = browser_attempt(answered=NUMBER - 1, lang=lang, slug=SLUG)
    response = page.goto(question_url(attempt, NUMBER, lang))
    field = page.get_by_role("textbox", name=t(lang, "Your answer (a number)"))
    expect(field).to_have_attribute("inputmode", "decimal")
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
def test_the_numerical_question_typed_right(page, browser_attempt, nu_checker, lang, request):
    scripted = "no-script" not in request.node.callspec.id
    attempt, field = _open_question(page, browser_attempt, nu_checker, lang)
    field.fill(RIGHT[lang])
    html = _check(page, lang, scripted=scripted)
    feedback = page.locator("#feedback")
    expect(feedback.locator("h2")).to_contain_text(t(lang, "Correct."))
    expect(feedback.locator("li.correct").last).to_contain_text(SHOWN[lang])
    expect(feedback).not_to_contain_text("±")  # Exactly: no "± 0".
    _checked(page, nu_checker, html)
    recorded = Answer.objects.get(attempt=attempt, question__position=NUMBER)
    assert (recorded.response, recorded.is_correct) == ("1024", True)


@CONTEXTS
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_numerical_question_refused_then_typed_wrong(
    page, browser_attempt, nu_checker, lang, request
):
    scripted = "no-script" not in request.node.callspec.id
    attempt, field = _open_question(page, browser_attempt, nu_checker, lang)
    field.fill("NaN")
    with page.expect_navigation() as navigation:
        page.get_by_role("button", name=t(lang, "Check answer")).click()
    assert navigation.value.status == 400
    expect(page.locator("#choice-error")).to_contain_text("NaN")
    field = page.get_by_role("textbox", name=t(lang, "Your answer (a number)"))
    expect(field).to_have_value("NaN")
    _checked(page, nu_checker, navigation.value.text())
    assert not Answer.objects.filter(attempt=attempt, question__position=NUMBER).exists()

    field.fill("32")
    html = _check(page, lang, scripted=scripted)
    feedback = page.locator("#feedback")
    expect(feedback.locator("h2")).to_contain_text(t(lang, "Not quite."))
    expect(feedback).to_contain_text(MISTAKE[lang])
    expect(feedback.locator("li.correct").last).to_contain_text(SHOWN[lang])
    expect(feedback).not_to_contain_text("±")  # Exactly: no "± 0".
    _checked(page, nu_checker, html)
    recorded = Answer.objects.get(attempt=attempt, question__position=NUMBER)
    assert (recorded.response, recorded.is_correct) == ("32", False)


UNITS_QUIZ = Path(__file__).with_name("units_quiz.yaml")
UNITS_NUMBER = 1  # Its numerical question, in MB (GB, Mo and Go too): 1,400 MB ± 14 MB.
TYPED = {"en": "1.4 GB", "fr": "1,4 Go"}
ACCEPTED = {
    "en": "1,400\u00a0MB\u00a0±\u00a014\u00a0MB",
    "fr": "1\u00a0400\u00a0MB\u00a0±\u00a014\u00a0MB",
}
UNKNOWN = {
    "en": "“kg” is not a unit of this answer: write MB, GB, Mo, Go.",
    "fr": "«\u00a0kg\u00a0» n’est pas une unité de cette réponse\u00a0: écrivez MB, GB, Mo, Go.",
}


@CONTEXTS
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_number_with_its_unit_typed_after_a_unit_refused(
    page, browser_attempt, nu_checker, lang, request
):
    scripted = "no-script" not in request.node.callspec.id
    quiz = quiz_import(data=quiz_file_read(content=UNITS_QUIZ.read_bytes()))
    attempt = browser_attempt(answered=UNITS_NUMBER - 1, lang=lang, slug=quiz.slug)
    response = page.goto(question_url(attempt, UNITS_NUMBER, lang))
    label = t(
        lang, "Your answer (a number, with or without its unit: %(units)s)", units="MB, GB, Mo, Go"
    )
    field = page.get_by_role("textbox", name=label)
    expect(field).to_have_attribute("inputmode", "text")
    _checked(page, nu_checker, response.text())

    field.fill("1,4 kg" if lang == "fr" else "1.4 kg")
    with page.expect_navigation() as navigation:
        page.get_by_role("button", name=t(lang, "Check answer")).click()
    assert navigation.value.status == 400
    expect(page.locator("#choice-error")).to_have_text(UNKNOWN[lang])
    expect(page.get_by_role("textbox", name=label)).to_have_attribute("aria-invalid", "true")
    _checked(page, nu_checker, navigation.value.text())
    assert not Answer.objects.filter(attempt=attempt, question__position=UNITS_NUMBER).exists()

    page.get_by_role("textbox", name=label).fill(TYPED[lang])
    html = _check(page, lang, scripted=scripted)
    feedback = page.locator("#feedback")
    expect(feedback.locator("h2")).to_contain_text(t(lang, "Correct."))
    expect(feedback).to_contain_text(ACCEPTED[lang])
    _checked(page, nu_checker, html)
    recorded = Answer.objects.get(attempt=attempt, question__position=UNITS_NUMBER)
    assert (recorded.response, recorded.is_correct) == ("1400", True)
