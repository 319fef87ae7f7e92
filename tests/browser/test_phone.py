"""Every demo question on a 375 × 667 phone, in both languages, signed in and signed out,
measured with the browser's boxes: the header in two rows at most, the prompt and the first
choice (a gaps question's: its prompt, which holds its inputs) on the first screen with
"Check answer" in view below them, and after answering the question's text just under the
sticky "Question n of N", never under it. The step page is also checked with axe-core and
the Nu Html Checker at 375 px and 1280 px."""

import re

import pytest
from django.contrib.auth.models import Permission, User
from playwright.sync_api import Page, expect

from quizzes.models import Quiz
from tests.browser.helpers import LANGUAGES, axe_violations, settle, t

PHONE = {"width": 375, "height": 667}
PASSWORD = "a long enough passphrase"
# Two boxes overlap by less than this on no real overlap: their edges are rounded apart.
EPSILON = 0.5

# The boxes of what a learner must see on the shown step, in CSS pixels of the viewport, and
# the header's rows: its links and buttons grouped into rows by their vertical extent.
MEASURE = """() => {
    const box = (selector) => {
        const element = document.querySelector(selector);
        if (!element) return null;
        const {top, bottom, left, right, height} = element.getBoundingClientRect();
        return {top, bottom, left, right, height};
    };
    const items = [...document.querySelectorAll(
        ".site-header .brand, .site-header .account a, .site-header .account button,"
        + " .site-header .languages a"
    )].map((e) => e.getBoundingClientRect()).filter((r) => r.width > 1 && r.height > 1);
    items.sort((a, b) => a.top - b.top);
    let rows = 0, rowBottom = -Infinity;
    for (const item of items) {
        if (item.top >= rowBottom) { rows += 1; rowBottom = item.bottom; }
        else rowBottom = Math.max(rowBottom, item.bottom);
    }
    return {
        viewport: window.innerHeight,
        scrollY: window.scrollY,
        header: box(".site-header"),
        headerRows: rows,
        bar: box(".step"),
        prompt: box("#prompt"),
        firstChoice: box(".choice, .number-answer, .text-answer, .ordering-item, .gapped"),
        gapped: document.querySelector(".gapped") !== null,
        actions: box(".form-actions"),
        button: box(".form-actions button"),
        verdict: box("#feedback .verdict-bar"),
    };
}"""


def _sign_in(page: Page, lang: str) -> None:
    """An instructor (the header's longest: My progress, Reports, Sign out) signs in."""
    user = User.objects.create_user("instructor", password=PASSWORD)
    user.user_permissions.add(Permission.objects.get(codename="view_report"))
    page.goto(f"/{lang}/accounts/login/")
    page.locator("#id_username").fill("instructor")
    page.locator("#id_password").fill(PASSWORD)
    with page.expect_navigation():
        page.locator("main button[type=submit]").click()
    expect(page.locator(".site-header")).to_contain_text(t(lang, "Sign out"))


def _check_header(figures: dict, where: str) -> None:
    assert figures["headerRows"] <= 2, (where, figures["headerRows"])
    # Its height too: two rows of links and the bar's padding, not three rows' worth.
    assert figures["header"]["height"] <= 80, (where, figures["header"])


def _check_question(figures: dict, where: str) -> None:
    """The unanswered question, as the page opens at its top."""
    _check_header(figures, where)
    screen, prompt, choice = figures["viewport"], figures["prompt"], figures["firstChoice"]
    assert figures["scrollY"] == 0, where
    assert 0 <= prompt["top"] and prompt["bottom"] <= screen, (where, prompt)
    if not figures["gapped"]:  # A gaps question's inputs are in its prompt's lines.
        assert prompt["bottom"] <= choice["top"] + EPSILON, (where, prompt, choice)
    assert choice["bottom"] <= screen, (where, choice)
    button, actions = figures["button"], figures["actions"]
    if choice["bottom"] + actions["height"] <= screen:  # The question fits with its button.
        assert 0 <= button["top"] and button["bottom"] <= screen, (where, button)
        # The sticky foot, when it sticks, covers none of the first choice.
        assert choice["bottom"] <= actions["top"] + EPSILON, (where, choice, actions)


def _check_feedback(figures: dict, where: str) -> None:
    """The answered question, scrolled as the page's script scrolls it."""
    _check_header(figures, where)
    bar, prompt, verdict = figures["bar"], figures["prompt"], figures["verdict"]
    assert bar["top"] >= -EPSILON, (where, bar)  # "Question n of N" is in view.
    assert prompt["top"] >= bar["bottom"] - EPSILON, (where, prompt, bar)
    assert verdict["bottom"] <= figures["viewport"], (where, verdict)


def _walk(page: Page, quiz: Quiz, lang: str) -> int:
    """Takes `quiz` question by question, measuring each before and after its answer; returns
    how many it measured."""
    page.goto(f"/{lang}/quizzes/{quiz.slug}/")
    page.get_by_role("button", name=t(lang, "Start the quiz")).click()
    total = quiz.questions.count()
    for number in range(1, total + 1):
        heading = t(lang, "Question %(number)s of %(total)s", number=number, total=total)
        expect(page.get_by_role("heading", level=1)).to_have_text(heading)
        settle(page)
        where = f"{quiz.slug} question {number}"
        _check_question(page.evaluate(MEASURE), where)
        if page.locator(".number-answer").count():
            page.locator("#number-answer").fill("1")
        elif page.locator(".ordering").count():
            page.get_by_role("button", name=t(lang, "Move up")).last.click()
        elif page.locator(".text-answer").count():
            page.locator("#text-answer").fill("DDP")
        elif page.locator(".gapped").count():  # A list's first choice, else a 1 typed.
            for gap in page.locator(".gap-input").all():
                if gap.evaluate("element => element.tagName") == "SELECT":
                    gap.select_option(index=1)
                else:
                    gap.fill("1")
        else:
            page.locator(".choice label").first.click()
        page.get_by_role("button", name=t(lang, "Check answer")).click()
        expect(page).to_have_url(re.compile(rf"/questions/{number}/#feedback$"))
        expect(page.locator("#feedback")).to_be_focused()
        settle(page)
        _check_feedback(page.evaluate(MEASURE), f"{where}, answered")
        next_link = "See your results" if number == total else "Next question"
        page.get_by_role("link", name=t(lang, next_link)).click()
    expect(page.locator("#score")).to_be_visible()
    return total


@pytest.mark.parametrize("signed_in", [False, True], ids=["signed-out", "signed-in"])
@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("context_options", [{"viewport": PHONE}], ids=["375x667"])
def test_every_demo_question_fits_a_phone(page, demo, lang, signed_in):
    if signed_in:
        _sign_in(page, lang)
    measured = sum(_walk(page, quiz, lang) for quiz in Quiz.objects.order_by("slug"))
    assert measured == 23  # Every demo question: the two demo quizzes' 13 and 10.


@pytest.mark.parametrize("width", [375, 1280])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_step_page_is_valid_and_accessible(page, demo, nu_checker, lang, width):
    page.set_viewport_size({"width": width, "height": 667 if width == 375 else 900})
    page.goto(f"/{lang}/quizzes/{demo.slug}/")
    page.get_by_role("button", name=t(lang, "Start the quiz")).click()
    expect(page.locator("#prompt")).to_be_visible()
    problems = {"Nu, question": nu_checker.errors(page.content())}
    problems["axe, question"] = axe_violations(page)
    page.locator(".choice label").first.click()
    page.get_by_role("button", name=t(lang, "Check answer")).click()
    expect(page.locator("#feedback")).to_be_focused()
    problems["Nu, feedback"] = nu_checker.errors(page.content())
    problems["axe, feedback"] = axe_violations(page)
    assert {what: found for what, found in problems.items() if found} == {}
