"""A gaps (cloze) question in a real browser (a quiz of its own, gaps_quiz.yaml): a number, a
choice and a short answer in one text, filled rightly and wrongly, in both languages, with
the script at 320 px (every gap reached, typed in and set from the keyboard alone) and without
it; a number that can't be read refused with its message, what was typed kept, nothing
recorded; valid HTML and no axe-core violation on the question, its feedback and the results."""

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from quizzes.interchange.importing import quiz_import
from quizzes.interchange.quizfile import quiz_file_read
from quizzes.models import Answer, Choice
from tests.browser.helpers import (
    CONTEXTS,
    check_answer,
    checked,
    focus_is_visible,
    focused,
    scripted,
    t,
)
from tests.factories import question_url

QUIZ = Path(__file__).with_name("gaps_quiz.yaml")


def _open(page: Page, browser_attempt, nu_checker, lang: str):
    quiz = quiz_import(data=quiz_file_read(content=QUIZ.read_bytes()))
    attempt = browser_attempt(lang=lang, slug=quiz.slug)
    response = page.goto(question_url(attempt, 1, lang))
    gapped = page.locator("#prompt.gapped")
    expect(gapped.locator(".gap-input")).to_have_count(3)
    instruction = "Fill in each gap: pick from its list, or type a word or a number."
    expect(page.get_by_role("group", name=t(lang, instruction))).to_be_visible()
    for number in (1, 2, 3):
        label = t(lang, "Gap %(number)s", number=number)
        expect(gapped.get_by_label(label, exact=True)).to_have_attribute("id", f"gap-{number}")
    checked(page, nu_checker, response.text())
    choices = {str(c.text_en): c for c in Choice.objects.filter(question__quiz=quiz)}
    return attempt, choices


def _tab(page: Page) -> None:
    page.keyboard.press("Tab")
    assert focus_is_visible(page), f"focus not visible on {focused(page)}"


def _fill(page: Page, lang: str, number: str, pick: Choice, typed: str) -> None:
    """Fills the three gaps: with the script from the keyboard alone (Tab from the top of the
    page to the first gap, then from gap to gap, a select box set by its arrow keys, the
    button reached by Tab), else as a click and typing would."""
    one, two, three = (page.locator(f"#gap-{n}") for n in (1, 2, 3))
    if not scripted(page):
        one.fill(number)
        two.select_option(str(pick.pk))
        three.fill(typed)
        return
    for _ in range(40):
        _tab(page)
        if one.evaluate("element => element === document.activeElement"):
            break
    expect(one).to_be_focused()
    page.keyboard.press("Control+A")
    page.keyboard.type(number)
    _tab(page)
    expect(two).to_be_focused()
    two.press("Home")
    for _ in range(two.locator("option").count()):
        if two.input_value() == str(pick.pk):
            break
        page.keyboard.press("ArrowDown")
    expect(two).to_be_focused()
    _tab(page)
    expect(three).to_be_focused()
    page.keyboard.press("Control+A")
    page.keyboard.type(typed)
    _tab(page)
    expect(page.get_by_role("button", name=t(lang, "Check answer"))).to_be_focused()
    for box, value in ((one, number), (two, str(pick.pk)), (three, typed)):
        expect(box).to_have_value(value)


def _results(page: Page, nu_checker, lang: str, score: str) -> None:
    """Follows "See your results" (the attempt's only question): the score, the gaps reviewed."""
    link = page.get_by_role("link", name=t(lang, "See your results"))
    if scripted(page):
        link.click()
        expect(page.locator("#score")).to_be_visible()
        html = page.content()
    else:
        with page.expect_navigation() as navigation:
            link.click()
        html = navigation.value.text()
    expect(page.locator("#score")).to_contain_text(score)
    expect(page.locator(".review-gaps li")).to_have_count(3)
    checked(page, nu_checker, html)


@CONTEXTS
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_gaps_filled_rightly(page, browser_attempt, nu_checker, lang):
    attempt, choices = _open(page, browser_attempt, nu_checker, lang)
    _fill(page, lang, "256", choices["all-reduce"], "DistributedDataParallel")
    html = check_answer(page, lang)
    feedback = page.locator("#feedback")
    expect(feedback.locator("h2")).to_contain_text(t(lang, "Correct."))
    expect(feedback.locator(".review-gaps .tag-correct")).to_have_count(3)
    expect(feedback.locator(".gap-right")).to_have_count(0)
    # The feedback's prompt shows each gap as its numbered blank, the review each answer.
    expect(page.locator("#prompt .gap-blank")).to_have_text(["(1)", "(2)", "(3)"])
    expect(feedback.locator(".review-gaps")).to_contain_text("DistributedDataParallel")
    checked(page, nu_checker, html)
    recorded = Answer.objects.get(attempt=attempt)
    assert (recorded.is_correct, recorded.credit) == (True, 1)
    right = str(choices["all-reduce"].pk)
    assert json.loads(recorded.response) == ["256", right, "DistributedDataParallel"]
    _results(page, nu_checker, lang, "1 / 1")


@CONTEXTS
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_gap_refused_then_the_gaps_filled_wrongly(page, browser_attempt, nu_checker, lang):
    attempt, choices = _open(page, browser_attempt, nu_checker, lang)
    _fill(page, lang, "two hundred", choices["all-reduce"], "FSDP")
    html = check_answer(page, lang)  # A number that can't be read: refused, nothing recorded.
    error = page.locator("#choice-error")
    expect(error).to_contain_text(t(lang, "Gap %(number)s: %(problem)s", number=1, problem=""))
    expect(error).to_contain_text("two hundred")
    for number, value in ((1, "two hundred"), (2, str(choices["all-reduce"].pk)), (3, "FSDP")):
        expect(page.locator(f"#gap-{number}")).to_have_value(value)
    # The gap refused, and it alone, is marked and described by the message.
    invalid = page.locator(".gap-input[aria-invalid=true][aria-describedby=choice-error]")
    expect(invalid).to_have_attribute("id", "gap-1")
    checked(page, nu_checker, html)
    assert not Answer.objects.filter(attempt=attempt).exists()

    _fill(page, lang, "32", choices["all-reduce"], "FSDP")
    html = check_answer(page, lang)
    feedback = page.locator("#feedback")
    share = t(lang, "Partly right: %(credit)s of the mark.")
    expect(feedback.locator("h2")).to_contain_text(share.split("%(credit)s")[0].strip())
    review = feedback.locator(".review-gaps")
    expect(review.locator(".tag-wrong")).to_have_count(2)
    expect(review.locator(".tag-correct")).to_have_count(1)
    # Each wrong gap: its right answer and the known mistake's feedback.
    expect(review.locator(".gap-right strong")).to_have_text(
        ["256", "DDP / DistributedDataParallel"]
    )
    for mistake in (choices["32"], choices["FSDP"]):
        expect(review).to_contain_text(mistake.feedback_fr if lang == "fr" else mistake.feedback_en)
    checked(page, nu_checker, html)
    recorded = Answer.objects.get(attempt=attempt)
    assert (recorded.is_correct, str(recorded.credit)) == (False, "0.33333")
    assert json.loads(recorded.response) == ["32", str(choices["all-reduce"].pk), "FSDP"]
    _results(page, nu_checker, lang, "0.33 / 1" if lang == "en" else "0,33 / 1")
