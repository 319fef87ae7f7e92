"""A learner takes the demo quiz in a real browser: by mouse, by keyboard, without script,
switching language half way, and on a 320 px wide screen."""

import html
import re
from collections.abc import Callable

import pytest
from django.utils import translation
from playwright.sync_api import Locator, Page, expect

from quizzes.kinds.numerical import plain
from quizzes.markup.rendering import render
from quizzes.models import Attempt, Quiz
from tests.browser.helpers import (
    fill_gaps,
    focus_is_visible,
    focused,
    gap_values,
    screenshot,
    t,
)
from tests.factories import choice_of, variant_of

# The learner gets these questions wrong, and the ordering one (9), whose items are checked
# as shown (never the right order): 11 / 13, which passes the 70 % mark.
WRONG = {3}
GAPS = "Fill in each gap: pick from its list, or type a word or a number."  # Its group's name.
TYPED = "DistributedDataParallel"  # The answer typed to the demo's short-answer question.
PLACEHOLDER = re.compile(r"\{[A-Za-z_]\w*\}")  # A calculated question's {workers}.


def _shown(source: str, lang: str) -> re.Pattern:
    """A Markdown text as a page's text or accessible name shows it, whatever the spacing.

    Code shows without its backticks and a formula as its MathML, whose name spaces its
    symbols ("B × W") where the text has none ("B×W"): only the characters must match. A
    calculated question's {workers} is whatever value the attempt drew.
    """
    text = html.unescape(re.sub(r"<[^>]+>", "", render(source, language=lang, inline=True).html))
    parts = [
        r"\s*".join(re.escape(char) for char in part if not char.isspace())
        for part in PLACEHOLDER.split(text)
    ]
    return re.compile(r"\s*.+?\s*".join(parts))


def _drawn_answer(question) -> Callable[[], str]:
    """The right answer of a calculated question, for the attempt under way (its variant)."""
    return lambda: plain(variant_of(Attempt.objects.get(), question)["answer"])


def _plan(quiz: Quiz, lang: str) -> list[tuple]:
    """(prompt, text of the choice to pick or the answer to type, is it right) for every
    question, as shown in `lang`; nothing to give for the ordering question, checked as
    shown; a number typed right (a calculated question's once the attempt has drawn it); a
    value for each gap of the gaps question (its group named by its instruction)."""
    plan = []
    with translation.override(lang):
        for number, question in enumerate(quiz.questions.order_by("position"), 1):
            right = number not in WRONG
            if question.kind == "ordering":
                plan.append((_shown(question.prompt, lang), None, False))
                continue
            if question.kind == "short_answer":
                plan.append((_shown(question.prompt, lang), TYPED, right))
                continue
            if question.kind == "numerical":
                value = choice_of(quiz, number, correct=True).text_en  # As the file writes it.
                plan.append((_shown(question.prompt, lang), value, True))
                continue
            if question.kind == "calculated":
                plan.append((_shown(question.prompt, lang), _drawn_answer(question), True))
                continue
            if question.kind == "gaps":
                values = gap_values(question, right=right, lang=lang)
                plan.append((t(lang, GAPS), values, right))
                continue
            choice = choice_of(quiz, number, correct=right)
            plan.append((_shown(question.prompt, lang), _shown(choice.text, lang), right))
    return plan


def _give(page: Page, answer: re.Pattern | str | Callable | list[str] | None) -> None:
    """Pick the choice by its label, type the answer, or fill each gap (nothing: an order as
    shown)."""
    if answer is None:
        return
    if isinstance(answer, list):
        fill_gaps(page, answer)
        return
    if callable(answer):
        answer = answer()
    if isinstance(answer, str):
        page.get_by_role("textbox").fill(answer)
    else:
        page.locator("label", has_text=answer).click()
        expect(page.get_by_role("radio", name=answer)).to_be_checked()


def _title(quiz: Quiz, lang: str) -> str:
    with translation.override(lang):
        return quiz.title


def _answer_by_clicking(page: Page, lang: str, number: int, plan, check: Callable) -> None:
    prompt, choice_text, right = plan[number - 1]
    heading = t(lang, "Question %(number)s of %(total)s", number=number, total=len(plan))
    expect(page.get_by_role("heading", level=1)).to_have_text(heading)
    expect(page.get_by_role("group", name=prompt)).to_be_visible()
    check(page)
    _give(page, choice_text)
    page.get_by_role("button", name=t(lang, "Check answer")).click()
    expect(page).to_have_url(
        re.compile(rf"/{lang}/attempts/[-0-9a-f]+/questions/{number}/#feedback$")
    )
    expect(page.locator("#feedback h2")).to_contain_text(
        t(lang, "Correct." if right else "Not quite.")
    )
    check(page)
    next_link = "Next question" if number < len(plan) else "See your results"
    page.get_by_role("link", name=t(lang, next_link)).click()


def _take_by_clicking(page: Page, quiz: Quiz, lang: str, check: Callable = lambda page: None):
    plan = _plan(quiz, lang)
    page.goto(f"/{lang}/")
    check(page)
    page.get_by_role("link", name=_title(quiz, lang), exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(_title(quiz, lang))
    check(page)
    page.get_by_role("button", name=t(lang, "Start the quiz")).click()
    for number in range(1, len(plan) + 1):
        _answer_by_clicking(page, lang, number, plan, check)
    _expect_results(page, lang)
    check(page)


def _expect_results(page: Page, lang: str) -> None:
    expect(page).to_have_url(re.compile(rf"/{lang}/attempts/[-0-9a-f]+/results/$"))
    heading = {"en": "Your results", "fr": "Vos résultats"}[lang]  # not t(): the catalogue too
    expect(page.get_by_role("heading", level=1)).to_have_text(heading)
    expect(page.locator("#score")).to_contain_text("11 / 13")
    expect(page.locator("html")).to_have_attribute("lang", lang)


def _expect_recorded(quiz: Quiz, lang: str) -> None:
    attempt = Attempt.objects.get()
    assert (attempt.quiz, attempt.language, attempt.score) == (quiz, lang, 11)
    assert attempt.is_finished
    assert attempt.answers.count() == 13


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_learner_takes_the_demo_quiz_by_clicking(page, demo, lang):
    _take_by_clicking(page, demo, lang)
    _expect_recorded(demo, lang)


@pytest.mark.parametrize("context_options", [{"java_script_enabled": False}], ids=["no-js"])
def test_learner_takes_the_demo_quiz_with_javascript_off(page, demo):
    def feedback_has_focus(page: Page) -> None:
        if page.url.endswith("#feedback"):
            expect(page.locator("#feedback")).to_be_focused()

    _take_by_clicking(page, demo, "fr", feedback_has_focus)
    _expect_recorded(demo, "fr")


@pytest.mark.parametrize("context_options", [{"viewport": {"width": 320, "height": 640}}])
def test_learner_takes_the_demo_quiz_on_a_320_px_screen(page, demo):
    def nothing_scrolls_sideways(page: Page) -> None:
        assert page.evaluate("document.documentElement.scrollWidth") <= 320, page.url

    # French: its longer words and labels are the harder fit.
    _take_by_clicking(page, demo, "fr", nothing_scrolls_sideways)
    _expect_recorded(demo, "fr")


def test_switching_language_mid_attempt_keeps_the_attempt(page, demo):
    english, french = _plan(demo, "en"), _plan(demo, "fr")
    page.goto(f"/en/quizzes/{demo.slug}/")
    page.get_by_role("button", name="Start the quiz").click()
    _answer_by_clicking(page, "en", 1, english, lambda page: None)
    page.go_back()  # back on question 1's feedback, then switch language there
    page.get_by_role("link", name="Français").click()
    expect(page).to_have_url(re.compile(r"/fr/attempts/[-0-9a-f]+/questions/1/$"))
    expect(page.locator("#feedback h2")).to_contain_text("Bonne réponse.")
    with translation.override("fr"):
        explanation = demo.questions.order_by("position")[0].explanation
    expect(page.locator("#feedback")).to_contain_text(explanation)
    page.get_by_role("link", name="Question suivante").click()
    for number in (2, 3):
        _answer_by_clicking(page, "fr", number, french, lambda page: None)
    page.get_by_role("link", name="English").click()
    expect(page.locator("progress")).to_have_attribute("value", "3")
    for number in range(4, len(english) + 1):
        _answer_by_clicking(page, "en", number, english, lambda page: None)
    _expect_results(page, "en")
    attempt = Attempt.objects.get()
    assert (attempt.answers.count(), attempt.score, attempt.language) == (13, 11, "en")


def _tab_to(page: Page, target: Locator, limit: int = 40) -> None:
    """Press Tab until `target` has the focus, checking at every stop that the focus shows."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        assert focus_is_visible(page), f"focus not visible on {focused(page)} at {page.url}"
        if target.evaluate("element => element === document.activeElement"):
            return
    raise AssertionError(f"Tab never reached {target} on {page.url}")


def _fill_gaps_by_keyboard(page: Page, values: list[str]) -> None:
    """Tab to the first gap, then fill each gap and Tab on to the next: a box typed in, a
    list set by its arrow keys to the choice of that text."""
    _tab_to(page, page.locator("#gap-1"))
    for number, value in enumerate(values, 1):
        gap = page.locator(f"#gap-{number}")
        expect(gap).to_be_focused()
        if gap.evaluate("element => element.tagName") == "SELECT":
            gap.press("Home")
            for _ in range(gap.locator("option").count()):
                if gap.locator("option:checked").inner_text() == value:
                    break
                page.keyboard.press("ArrowDown")
            expect(gap.locator("option:checked")).to_have_text(value)
        else:
            page.keyboard.type(value)
            expect(gap).to_have_value(value)
        if number < len(values):
            page.keyboard.press("Tab")
            assert focus_is_visible(page), focused(page)


def _press_enter_to_follow(page: Page) -> None:
    """A page load, or with the page's script the address it pushes (a same-page one)."""
    with page.expect_navigation():
        page.keyboard.press("Enter")


@pytest.mark.parametrize(
    "context_options", [{}, {"java_script_enabled": False}], ids=["script", "no-script"]
)
def test_learner_takes_the_demo_quiz_with_the_keyboard_alone(page, demo):
    plan = _plan(demo, "en")
    page.goto("/en/")
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    assert focus_is_visible(page)
    # The skip link's target, <main>, shows no outline of its own on purpose (a frame around
    # the whole page tells nothing); the next Tab goes on from there, into the content.
    page.keyboard.press("Enter")
    expect(page.locator("main")).to_be_focused()
    _tab_to(page, page.get_by_role("link", name=_title(demo, "en"), exact=True), limit=3)
    _press_enter_to_follow(page)
    _tab_to(page, page.get_by_role("button", name="Start the quiz"))
    _press_enter_to_follow(page)

    for number, (prompt, choice_text, right) in enumerate(plan, 1):
        heading = f"Question {number} of {len(plan)}"
        expect(page.get_by_role("heading", level=1)).to_have_text(heading)
        if choice_text is None:  # The ordering question, checked as shown.
            _tab_to(page, page.get_by_role("button", name="Check answer"))
        elif isinstance(choice_text, list):  # Each gap in turn, the next stop after the last.
            _fill_gaps_by_keyboard(page, choice_text)
        elif isinstance(choice_text, str) or callable(choice_text):  # Typed in the text box,
            typed = choice_text() if callable(choice_text) else choice_text  # by the prompt.
            box = page.get_by_role("group", name=prompt).get_by_role("textbox")
            _tab_to(page, box)
            page.keyboard.type(typed)
            expect(box).to_have_value(typed)
        else:
            radios = page.get_by_role("group", name=prompt).get_by_role("radio")
            _tab_to(page, radios.first)
            page.keyboard.press("Space")
            target = page.get_by_role("radio", name=choice_text)
            for _ in range(radios.count()):
                if target.is_checked():
                    break
                page.keyboard.press("ArrowDown")
                assert focus_is_visible(page), focused(page)
            expect(target).to_be_checked()
            expect(target).to_be_focused()
        if choice_text is not None:  # The button is the next stop after the answer.
            _tab_to(page, page.get_by_role("button", name="Check answer"), limit=1)
        _press_enter_to_follow(page)
        expect(page).to_have_url(re.compile(rf"/questions/{number}/#feedback$"))
        # The answer's feedback takes the focus (Chromium focuses the fragment's target, a
        # section with tabindex=-1 named by its verdict), so a screen reader reads it out.
        feedback = page.locator("#feedback")
        expect(feedback).to_be_focused()
        expect(feedback).to_be_in_viewport()
        assert focus_is_visible(page)
        ring, edge = feedback.evaluate(
            "e => [getComputedStyle(e).outlineColor, getComputedStyle(e).borderLeftColor]"
        )
        assert ring == edge  # The verdict's colour, not the orange of a warning.
        expect(
            page.get_by_role("region", name="Correct." if right else "Not quite.")
        ).to_be_focused()
        if number == 1:
            screenshot(page, "keyboard-feedback-focused", full_page=False)
        _tab_to(
            page,
            page.get_by_role(
                "link", name="Next question" if number < len(plan) else "See your results"
            ),
        )
        _press_enter_to_follow(page)
    _expect_results(page, "en")
    _tab_to(page, page.get_by_role("button", name="Retry the quiz"))
    screenshot(page, "keyboard-results-focused", full_page=False)
    _expect_recorded(demo, "en")


def test_with_script_a_step_is_one_request_and_focus_follows(page, demo):
    """The script posts Start and gets the first question, then each answer and gets its
    feedback with what follows: no page load from the quiz page to the results. Focus,
    title, address and the links to the other language follow each step; Back shows the
    server's page for its address."""
    plan = _plan(demo, "en")
    loads, posts = [], []
    page.on(
        "request",
        lambda r: (
            (loads if r.resource_type == "document" else posts).append(r.url)
            if r.resource_type in {"document", "fetch"}
            else None
        ),
    )
    page.goto(f"/en/quizzes/{demo.slug}/")
    page.get_by_role("button", name="Start the quiz").click()
    total = len(plan)
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Question 1 of {total}")
    expect(page.get_by_role("heading", level=1)).to_be_focused()
    expect(page).to_have_url(re.compile(r"/en/attempts/[-0-9a-f]+/questions/1/$"))
    expect(page).to_have_title(f"Question 1 of {total} · {_title(demo, 'en')} · Quizsite")
    for number, (_prompt, choice_text, right) in enumerate(plan, 1):
        _give(page, choice_text)
        page.get_by_role("button", name="Check answer").click()
        verdict = "Correct." if right else "Not quite."
        expect(page.get_by_role("region", name=verdict)).to_be_focused()
        expect(page).to_have_url(
            re.compile(rf"/en/attempts/[-0-9a-f]+/questions/{number}/#feedback$")
        )
        if number == total:
            break
        page.get_by_role("link", name="Next question").click()
        expect(page).to_have_url(re.compile(rf"/questions/{number + 1}/$"))
        expect(page).to_have_title(
            f"Question {number + 1} of {total} · {_title(demo, 'en')} · Quizsite"
        )
        expect(page.get_by_role("heading", level=1)).to_be_focused()
        french = page.get_by_role("link", name="Français")
        expect(french).to_have_attribute("href", re.compile(rf"^/fr/.*/questions/{number + 1}/$"))
        if number == 2:
            page.go_back()  # To question 2's feedback, as the server shows it now.
            expect(page).to_have_url(re.compile(r"/questions/2/#feedback$"))
            expect(page.locator("#feedback h2")).to_contain_text("Correct.")
            page.get_by_role("link", name="Next question").click()
            expect(page).to_have_url(re.compile(r"/questions/3/$"))
    page.get_by_role("link", name="See your results").click()
    _expect_results(page, "en")
    expect(page).to_have_title(f"Your results · {_title(demo, 'en')} · Quizsite")
    expect(page.get_by_role("heading", level=1)).to_be_focused()
    french = page.get_by_role("link", name="Français")
    expect(french).to_have_attribute("href", re.compile(r"^/fr/attempts/[-0-9a-f]+/results/$"))
    _expect_recorded(demo, "en")
    # Only Back's reload of question 2 and the link followed from it loaded a page.
    assert [url.split("/en/", 1)[1].split("/", 1)[0] for url in loads] == [
        "quizzes",
        "attempts",
        "attempts",
    ], loads
    answered = [url for url in loads if re.search(r"/questions/\d+/", url)]
    assert [url.rsplit("/questions/", 1)[1] for url in answered] == ["2/", "3/"], answered
    assert len(posts) == 14, posts  # Start and the thirteen answers.
    # The results' forms work with the page's token: practise the questions missed.
    page.get_by_role("button", name="Practise the 2 questions I missed").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Question 1 of 2")
