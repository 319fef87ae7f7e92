"""The admin's import walked in the browser: upload, preview, confirm or cancel."""

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from quizzes.models import Quiz
from tests.browser.helpers import (
    LANGUAGES,
    admin_import_preview,
    axe_violations,
    screenshot,
    sign_in_to_admin,
    t,
)


@pytest.fixture(autouse=True)
def kept_uploads(settings):
    """Where the admin keeps an import file until it is confirmed (tests/conftest.py moves
    the private storage into the test's own directory)."""
    return settings.STORAGES["private"]["OPTIONS"]["location"]


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_upload_preview_then_confirm(page: Page, browser_attempt, kept_uploads, lang):
    response = admin_import_preview(page, browser_attempt, lang)
    assert response.status == 200
    main = page.locator("#content-main")
    assert t(lang, "Create") in main.inner_text()
    crumbs = page.locator("div.breadcrumbs").evaluate("e => getComputedStyle(e).backgroundColor")
    assert crumbs not in ("rgba(0, 0, 0, 0)", "transparent")  # Django 5.2's bar, on 6 too.
    for line in (5, 7):  # The loss of partial credit, then the essay left out.
        assert t(lang, "line %(line)s", line=line) in main.inner_text()
    assert not Quiz.objects.filter(slug="networks").exists()
    # A question is left out: the file is refused unless the editor imports the rest.
    assert page.get_by_role("button", name=t(lang, "Confirm the import")).count() == 0
    with page.expect_navigation():
        page.get_by_role("button", name=t(lang, "Import the rest")).click()
    assert page.url.endswith("/admin/quizzes/quiz/")
    assert t(lang, "Imported.") in page.locator(".messagelist").inner_text()
    quiz = Quiz.objects.get(slug="networks")
    assert [q.kind for q in quiz.questions.all()] == ["single", "multiple"]
    assert list((kept_uploads / "imports").iterdir()) == []


def test_upload_preview_then_cancel(page: Page, browser_attempt, kept_uploads):
    admin_import_preview(page, browser_attempt, "en")
    with page.expect_navigation():
        page.get_by_role("button", name="Refuse the file").click()
    assert "Import cancelled: nothing was written." in page.locator(".messagelist").inner_text()
    assert not Quiz.objects.filter(slug="networks").exists()
    assert list((kept_uploads / "imports").iterdir()) == []


@pytest.mark.parametrize("width", [1280, 375])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_format_is_one_link_away_from_the_upload(page: Page, nu_checker, lang, width):
    page.set_viewport_size({"width": width, "height": 900})
    sign_in_to_admin(page, lang)
    page.goto("/admin/quizzes/quiz/import/")
    with page.expect_navigation() as navigation:
        page.locator("a[href$='/quiz/format/']").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("The quiz file format")
    expect(page.locator("h2#writing-content")).to_have_text("Writing content")
    page.goto(page.url + "#writing-content")  # As the README links to the section.
    expect(page.locator("#writing-content")).to_be_in_viewport()
    screenshot(page, f"admin-format-{lang}-{width}px", full_page=False)
    problems = {
        "Nu Html Checker": nu_checker.errors(navigation.value.text()),
        "axe": axe_violations(page),
        f"wider than {width} px": page.evaluate(f"document.documentElement.scrollWidth > {width}"),
    }
    assert {what: found for what, found in problems.items() if found} == {}


def test_a_large_file_goes_through_the_task_worker(
    page: Page, browser_attempt, nu_checker, settings
):
    """A file over IMPORT_BACKGROUND_BYTES: the progress page, valid and accessible, reloads
    itself to the preview once the worker planned it, then to what the confirm imported."""
    settings.IMPORT_BACKGROUND_BYTES = 0
    response = admin_import_preview(page, browser_attempt, "en")
    waiting = page.url
    assert "/import/progress/" in waiting
    expect(page.get_by_role("link", name="Reload now")).to_be_visible()
    problems = {"Nu Html Checker": nu_checker.errors(response.text()), "axe": axe_violations(page)}
    assert {what: found for what, found in problems.items() if found} == {}
    call_command("db_worker", batch=True, interval=0, verbosity=0, startup_delay=False)
    confirm = page.get_by_role("button", name="Import the rest")  # A question is left out.
    expect(confirm).to_be_visible(timeout=10_000)  # The page's script reloaded it.
    assert page.url == waiting
    with page.expect_navigation():
        confirm.click()
    assert not Quiz.objects.filter(slug="networks").exists()
    call_command("db_worker", batch=True, interval=0, verbosity=0, startup_delay=False)
    expect(page.locator("#content-main")).to_contain_text("Imported.", timeout=10_000)
    assert Quiz.objects.get(slug="networks").questions.count() == 2
