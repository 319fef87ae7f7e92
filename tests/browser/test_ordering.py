"""The demo's ordering question in a real browser: put in order rightly and wrongly, in both
languages, with the script at 320 px (its Move buttons by click and keyboard, its drag
handle, its announcements) and without it (a position box per item, two items at one
position refused); valid HTML at each step, and no axe-core violation with the script."""

import pytest
from playwright.sync_api import Page, expect

from quizzes.models import Answer, Question
from tests.browser.helpers import (
    CONTEXTS,
    DEMO_QUIZ,
    check_answer,
    checked,
    put_in_order,
    scripted,
    shown_order,
    t,
)
from tests.factories import question_url

NUMBER = 9  # The data parallelism quiz's ordering question, its last.


def _items() -> list[int]:
    """The question's items' ids, in their right order."""
    question = Question.objects.get(quiz__slug=DEMO_QUIZ, position=NUMBER)
    return list(question.choices.order_by("position").values_list("pk", flat=True))


def _open(page: Page, browser_attempt, nu_checker, lang: str):
    attempt = browser_attempt(answered=NUMBER - 1, lang=lang)
    response = page.goto(question_url(attempt, NUMBER, lang))
    expect(page.locator("ol.ordering")).to_be_visible()
    checked(page, nu_checker, response.text())
    return attempt


def _move_into(page: Page, lang: str, order: list[int]) -> None:
    """With the script: the items moved up by their buttons until the list is `order`, each
    move read out."""
    put_in_order(page, lang, order)
    status = page.locator("[data-ordering-status]")
    expect(status).to_contain_text(t(lang, "Moved to position {position} of {total}.")[:8])


@CONTEXTS
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_ordering_question_put_in_the_right_order(page, browser_attempt, nu_checker, lang):
    attempt = _open(page, browser_attempt, nu_checker, lang)
    right = _items()
    if scripted(page):
        expect(page.locator("ol.ordering select")).to_have_count(0)  # Hidden fields instead.
        _move_into(page, lang, right)
    else:
        for place, pk in enumerate(right, 1):
            page.locator(f"#position-{pk}").select_option(f"{pk}:{place}")
    html = check_answer(page, lang)
    feedback = page.locator("#feedback")
    expect(feedback.locator("h2")).to_contain_text(t(lang, "Correct."))
    expect(feedback).to_contain_text(t(lang, "The right order"))
    expect(feedback.locator(".tag-correct")).to_have_count(4)
    checked(page, nu_checker, html)
    recorded = Answer.objects.get(attempt=attempt, question__position=NUMBER)
    assert (recorded.response, recorded.is_correct) == (",".join(map(str, right)), True)


@CONTEXTS
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_ordering_question_put_in_a_wrong_order(page, browser_attempt, nu_checker, lang):
    attempt = _open(page, browser_attempt, nu_checker, lang)
    first, second, third, fourth = _items()
    wrong = [second, first, third, fourth]
    if scripted(page):
        # The last item dragged to the top by its handle, then the rest moved by buttons.
        shown = shown_order(page)
        handle = page.locator(f"li:has(#item-{shown[-1]}) .ordering-handle")
        handle.drag_to(page.locator("ol.ordering > li").first, target_position={"x": 4, "y": 2})
        assert shown_order(page)[0] == shown[-1]
        _move_into(page, lang, wrong)
    else:
        for pk in (first, second):  # Both at position 1: refused, nothing recorded.
            page.locator(f"#position-{pk}").select_option(f"{pk}:1")
        for place, pk in ((3, third), (4, fourth)):
            page.locator(f"#position-{pk}").select_option(f"{pk}:{place}")
        html = check_answer(page, lang)
        message = t(lang, "Two items share position %(position)s: give each item its own position.")
        expect(page.locator("#choice-error")).to_have_text(message % {"position": 1})
        expect(page.locator(f"#position-{second}")).to_have_value(f"{second}:1")
        checked(page, nu_checker, html)
        assert not Answer.objects.filter(attempt=attempt, question__position=NUMBER).exists()
        for place, pk in enumerate(wrong, 1):
            page.locator(f"#position-{pk}").select_option(f"{pk}:{place}")
    html = check_answer(page, lang)
    feedback = page.locator("#feedback")
    expect(feedback.locator("h2")).to_contain_text(t(lang, "Not quite."))
    belongs = t(lang, "Belongs at position %(position)s")
    expect(feedback).to_contain_text(belongs % {"position": 2})
    expect(feedback).to_contain_text(belongs % {"position": 1})
    checked(page, nu_checker, html)
    recorded = Answer.objects.get(attempt=attempt, question__position=NUMBER)
    assert (recorded.response, recorded.is_correct) == (",".join(map(str, wrong)), False)
