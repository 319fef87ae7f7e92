"""The admin's change pages of a quiz and of a question, in the browser: questions and
choices reorder by dragging and by the keyboard, and the pages (their long plain-text headings
under which the object tools sit) are valid and accessible at 1280 and 375 px."""

import pytest
from playwright.sync_api import Page, expect

from quizzes.models import Quiz
from tests.browser.helpers import (
    LANGUAGES,
    axe_violations,
    screenshot,
    sign_in_to_admin,
    t,
)

POSITIONS = (
    "(fieldset) => [...document.querySelectorAll(fieldset + ' tr.has_original')]"
    ".map((row) => row.querySelector('input._reorder_').value)"
)


def _ids(page: Page, prefix: str) -> list[int]:
    return [
        int(value)
        for value in page.locator(
            f"#{prefix}-group tr.has_original input[name$='-id']"
        ).evaluate_all("(inputs) => inputs.map((i) => i.value)")
    ]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_choices_reorder_with_the_keyboard(page: Page, demo: Quiz, lang):
    question = demo.questions.get(position=1)
    before = list(question.choices.values_list("pk", flat=True))
    sign_in_to_admin(page, lang)
    page.goto(f"/admin/quizzes/question/{question.pk}/change/")
    down = page.locator("#choices-group tr.has_original").first.locator(".reorder-down")
    expect(down).to_have_text(t(lang, "Move down"))
    down.focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Space")
    expect(page.locator("#choices-group .reorder-status")).to_have_text(
        t(lang, "Moved to position %(position)s of %(count)s.", position=3, count=len(before))
    )
    assert page.evaluate("document.activeElement.classList.contains('reorder-down')")
    assert _ids(page, "choices") == [before[1], before[2], before[0], *before[3:]]
    assert page.evaluate(POSITIONS, "#choices-group") == [str(n) for n in range(1, len(before) + 1)]
    with page.expect_navigation():
        page.locator("input[name=_continue]").click()
    assert list(question.choices.values_list("pk", flat=True)) == [
        before[1],
        before[2],
        before[0],
        *before[3:],
    ]


def test_questions_reorder_by_dragging(page: Page, demo: Quiz):
    demo.is_published = False
    demo.save()
    before = list(demo.questions.values_list("pk", flat=True))
    sign_in_to_admin(page, "en")
    page.goto(f"/admin/quizzes/quiz/{demo.pk}/change/")
    rows = page.locator("#questions-group tr.has_original")
    handle = rows.nth(0).locator("td.original p")
    target = rows.nth(2).locator("td.original p")
    box = target.bounding_box()
    handle.drag_to(target, target_position={"x": 5, "y": box["height"] - 2})
    moved = _ids(page, "questions")
    assert moved != before and sorted(moved) == sorted(before)
    assert moved.index(before[0]) > 0
    assert page.evaluate(POSITIONS, "#questions-group") == [
        str(n) for n in range(1, len(before) + 1)
    ]
    with page.expect_navigation():
        page.locator("input[name=_continue]").click()
    assert list(demo.questions.values_list("pk", flat=True)) == moved


@pytest.mark.parametrize("width", [1280, 375])
@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("which", ["quiz", "question"])
def test_change_page_is_valid_accessible_and_its_heading_clear_of_the_buttons(
    page: Page, demo: Quiz, nu_checker, which, lang, width
):
    question = demo.questions.get(position=1)
    question.prompt_en = question.prompt_fr = "Which **one** of `these` " + "words " * 40 + "?"
    question.save()
    page.set_viewport_size({"width": width, "height": 900})
    sign_in_to_admin(page, lang)
    obj = demo if which == "quiz" else question
    response = page.goto(f"/admin/quizzes/{which}/{obj.pk}/change/")
    page.wait_for_load_state("load")
    heading = page.locator("#content > h2, #content .titles > h2")  # Django 5.2, 6.1
    assert "**" not in heading.inner_text() and "`" not in heading.inner_text()
    heading_box = heading.bounding_box()
    for tool in page.locator(".object-tools a").all():
        box = tool.bounding_box()
        assert box["y"] >= heading_box["y"] + heading_box["height"], tool.inner_text()
        assert box["x"] + box["width"] <= width
    screenshot(page, f"admin-{which}-change-{lang}-{width}px")
    problems = {
        "Nu Html Checker": nu_checker.errors(response.text()),
        "axe": axe_violations(page),
        f"wider than {width} px": page.evaluate(f"document.documentElement.scrollWidth > {width}"),
    }
    assert {what: found for what, found in problems.items() if found} == {}
