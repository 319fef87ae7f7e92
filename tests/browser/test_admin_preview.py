"""An editor previews a question in the admin with JavaScript off: the Preview button is a
plain submit, the page comes back with the typed text rendered, and nothing is saved."""

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from tests.browser.helpers import screenshot

PASSWORD = "a long enough passphrase"


@pytest.mark.parametrize("context_options", [{"java_script_enabled": False}], ids=["no-js"])
def test_editor_previews_a_question_without_script(page: Page, demo):
    User.objects.create_superuser("editor", password=PASSWORD)
    page.goto("/admin/login/")
    page.locator("#id_username").fill("editor")
    page.locator("#id_password").fill(PASSWORD)
    page.locator("input[type=submit]").click()
    question = demo.questions.get(position=2)
    page.goto(f"/admin/quizzes/question/{question.pk}/change/")
    expect(page.locator("#preview-title")).to_have_text("Preview of the saved question")
    expect(page.locator("#preview img")).to_have_count(2)  # The diagram, in each language.

    page.locator("#id_prompt_en").fill("What does `model.no_sync()` skip when $k > 1$?")
    page.get_by_role("button", name="Preview").click()
    expect(page.locator("#preview-title")).to_have_text("Preview of what you typed (not saved yet)")
    expect(page.locator('.preview-prompt[lang="en"] code')).to_have_text("model.no_sync()")
    expect(page.locator('.preview-prompt[lang="en"] math')).to_have_count(1)
    expect(page.locator("#id_prompt_en")).to_have_value(
        "What does `model.no_sync()` skip when $k > 1$?"
    )
    page.locator("#preview").scroll_into_view_if_needed()
    screenshot(page, "admin-question-preview", full_page=True)
    question.refresh_from_db()
    assert question.prompt_en.startswith("Which communication operation")
