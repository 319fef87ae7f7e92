"""An editor copies a quiz's and a question's embed snippets in the admin: valid HTML, no
axe violation, at 375 px too, and the Copy button puts the box's text on the clipboard (with
the keyboard); without script, the boxes are there to select."""

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import axe_violations, screenshot, sign_in_to_admin, t


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize(
    "context_options", [{}, {"viewport": {"width": 375, "height": 800}}], ids=["wide", "375px"]
)
def test_an_editor_copies_the_quiz_s_snippet(
    page: Page, context, live_server, demo, nu_checker, lang, context_options
):
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    sign_in_to_admin(page, lang)
    response = page.goto(f"/admin/quizzes/quiz/{demo.pk}/change/")
    problems = {"Nu Html Checker": nu_checker.errors(response.text()), "axe": axe_violations(page)}
    assert problems == {"Nu Html Checker": [], "axe": []}
    width = page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    box = page.locator("#embed-quiz-fr-script")
    expected = box.input_value()
    assert "/fr/embed/quizzes/data-parallelism-quiz/" in expected
    copy = box.locator("xpath=following-sibling::button[1]")
    expect(copy).to_have_text(t(lang, "Copy"))
    copy.focus()
    page.keyboard.press("Enter")
    expect(box.locator("xpath=following-sibling::*[@role='status'][1]")).to_have_text(
        t(lang, "Copied to the clipboard.")
    )
    assert page.evaluate("navigator.clipboard.readText()") == expected
    box.scroll_into_view_if_needed()
    screenshot(page, f"admin-embed-snippets-{lang}-{width}", full_page=False)


@pytest.mark.parametrize("context_options", [{"java_script_enabled": False}], ids=["no-js"])
def test_without_script_the_question_s_snippet_is_there_to_select(page: Page, demo, nu_checker):
    sign_in_to_admin(page, "en")
    question = demo.questions.get(position=2)
    response = page.goto(f"/admin/quizzes/question/{question.pk}/change/")
    assert nu_checker.errors(response.text()) == []
    box = page.get_by_label("Plain frame: works everywhere, JavaScript off too.").first
    assert "/en/embed/quizzes/data-parallelism-quiz/questions/2/" in box.input_value()
    expect(page.locator("button.embed-copy")).to_have_count(0)
