"""An instructor has the attempts CSV prepared in the background, in a real browser at 375 px,
by keyboard: the export's page follows the task worker with its script (or, without script,
its Reload link), then offers the file; valid HTML, no axe violation, both languages."""

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from tests.browser.helpers import DEMO_QUIZ, axe_violations, sign_in_as_instructor, t

NARROW = {"viewport": {"width": 375, "height": 800}}


def worker_run() -> None:
    call_command("db_worker", batch=True, interval=0, verbosity=0, startup_delay=False)


def problems(page: Page, nu_checker, html: str, *, scripted: bool = True) -> dict:
    found = {"Nu Html Checker": nu_checker.errors(html)}
    if scripted:
        found["axe"] = axe_violations(page)
        found["wider than 375 px"] = page.evaluate("document.documentElement.scrollWidth > 375")
    return {what: listed for what, listed in found.items() if listed}


def export_asked(page: Page, lang: str):
    page.goto(f"/{lang}/reports/quizzes/{DEMO_QUIZ}/?attempts=all")
    button = page.get_by_role("button", name=t(lang, "Prepare the attempts CSV in the background"))
    button.focus()
    with page.expect_navigation() as navigation:
        page.keyboard.press("Enter")
    return navigation.value


@pytest.mark.parametrize("context_options", [NARROW], ids=["375px"])
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_export_page_follows_the_worker_then_offers_the_file(
    page: Page, live_server, demo, nu_checker, lang
):
    sign_in_as_instructor(page, lang)
    waiting = export_asked(page, lang)
    assert waiting.status == 200
    status = page.locator("#export-status")
    expect(status).to_have_text(t(lang, "The export waits for the task worker to start it."))
    assert problems(page, nu_checker, waiting.text()) == {}
    address = page.url

    worker_run()
    download = page.get_by_role("link", name=t(lang, "Download the CSV"))
    expect(download).to_be_visible()  # The page's script saw the export done and reloaded.
    assert page.url == address
    html = page.content()
    assert problems(page, nu_checker, html) == {}
    download.focus()
    with page.expect_download() as event:
        page.keyboard.press("Enter")
    assert event.value.suggested_filename == f"{DEMO_QUIZ}-attempts.csv"
    body = open(event.value.path(), encoding="utf-8-sig").read()
    assert body.startswith(t(lang, "Learner") + ",")
    assert body.count("\n") > 40  # The 40 seeded attempts and their retries.


@pytest.mark.parametrize("context_options", [{"java_script_enabled": False}], ids=["no-js"])
def test_without_script_the_reload_link_shows_the_file(page: Page, live_server, demo, nu_checker):
    sign_in_as_instructor(page, "en")
    waiting = export_asked(page, "en")
    assert problems(page, nu_checker, waiting.text(), scripted=False) == {}
    worker_run()
    expect(page.get_by_role("link", name="Download the CSV")).to_have_count(0)  # No script.
    with page.expect_navigation():
        page.get_by_role("link", name="Reload").click()
    expect(page.get_by_role("link", name="Download the CSV")).to_be_visible()
    assert "The file is ready:" in page.locator("main").inner_text()
