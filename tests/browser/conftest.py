"""Browser tests: Playwright drives Debian's Chromium against pytest-django's live server.

`make test` installs Chromium (apt), axe-core and the Nu Html Checker (npm, into
node_modules/) before running them. Screenshots land in var/screenshots/.
"""

import json
import os
import secrets
import subprocess
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.http import HttpResponse
from django.utils import translation
from playwright.sync_api import Browser, BrowserContext, Page, Response, sync_playwright

from quizzes.learning.identity import LEARNER_COOKIE
from quizzes.learning.services import answer_record, attempt_start
from quizzes.models import Attempt, Quiz
from tests.factories import content_of

# Playwright's sync API runs an asyncio event loop in the test thread, and Django refuses ORM
# calls from a thread with a running loop. Nothing else runs in that thread, so they are safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"
# Headless, no sandbox (we run as root), and nothing that reaches for the network on its own.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
NODE_MODULES = settings.BASE_DIR / "node_modules"
AXE = NODE_MODULES / "axe-core" / "axe.min.js"
VNU = NODE_MODULES / "vnu-jar" / "build" / "dist" / "vnu.jar"
SCREENSHOTS = settings.BASE_DIR / "var" / "screenshots"
DEMO_QUIZ = "data-parallelism-quiz"
LANGUAGES = [code for code, _name in settings.LANGUAGES]


@pytest.fixture(scope="session")
def browser() -> Browser:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def context_options() -> dict:
    """Override in a test module (or parametrize) to change the viewport, script, colours."""
    return {}


@pytest.fixture
def context(browser, live_server, context_options) -> BrowserContext:
    options = {"viewport": {"width": 1200, "height": 900}} | context_options
    context = browser.new_context(base_url=live_server.url, **options)
    context.set_default_timeout(10_000)
    yield context
    context.close()


@pytest.fixture
def page(context) -> Page:
    return context.new_page()


@pytest.fixture
def demo(transactional_db) -> Quiz:
    """The real demo content (`manage.py loaddemo`); returns the data parallelism quiz."""
    call_command("loaddemo", stdout=StringIO())
    return Quiz.objects.get(slug=DEMO_QUIZ)


@pytest.fixture
def browser_attempt(context, live_server, demo):
    """Makes an anonymous attempt at a demo quiz (the data parallelism one unless `slug` says)
    owned by the browser's learner key, with the first `answered` questions answered (odd ones
    right, even ones wrong), without clicking."""

    def make(*, answered: int = 0, lang: str = "en", slug: str = DEMO_QUIZ) -> Attempt:
        quiz = demo if slug == DEMO_QUIZ else Quiz.objects.get(slug=slug)
        key = secrets.token_hex(16)
        with translation.override(lang):
            attempt = attempt_start(quiz=quiz, user=None, learner_key=key)
        content = content_of(quiz)
        for number, question in enumerate(content.questions[:answered], 1):
            choice = next(c for c in question.choices if c.is_correct == (number % 2 == 1))
            answer_record(attempt=attempt, quiz=content, question=question, choices=(choice,))
        response = HttpResponse()
        response.set_signed_cookie(LEARNER_COOKIE, key, salt=LEARNER_COOKIE)
        cookie = {"name": LEARNER_COOKIE, "value": response.cookies[LEARNER_COOKIE].value}
        context.add_cookies([cookie | {"url": live_server.url}])
        return Attempt.objects.get(pk=attempt.pk)

    return make


def t(lang: str, message: str, **values) -> str:
    """The site's own translation of `message`, as the page in `lang` shows it."""
    with translation.override(lang):
        return translation.gettext(message) % values if values else translation.gettext(message)


def axe_violations(page: Page) -> list[str]:
    """Every axe-core violation on the page, whatever its impact, one line each."""
    # Through the DevTools protocol, which the page's Content-Security-Policy does not govern:
    # a <script> tag added to the page would be inline script, which it refuses.
    page.evaluate(AXE.read_text())
    result = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{violation['id']} ({violation['impact']}): {node['target']} {node['failureSummary']}"
        for violation in result["violations"]
        for node in violation["nodes"]
    ]


def nu_errors(documents: dict[str, str], folder: Path) -> dict[str, list[str]]:
    """Nu Html Checker errors per document name, checking all documents in one JVM run."""
    for name, html in documents.items():
        (folder / f"{name}.html").write_text(html, encoding="utf-8")
    run = subprocess.run(
        [
            "java",
            "-jar",
            str(VNU),
            "--format",
            "json",
            "--stdout",
            *map(str, folder.glob("*.html")),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    errors: dict[str, list[str]] = {}
    for message in json.loads(run.stdout)["messages"]:
        if message["type"] in {"error", "non-document-error"}:
            name = Path(message.get("url", "?")).stem
            errors.setdefault(name, []).append(
                f"line {message.get('lastLine')}: {message['message']}"
            )
    return errors


def focus_is_visible(page: Page) -> bool:
    """Something other than the page itself has the focus, and it shows an outline."""
    return page.evaluate(
        """() => {
            const element = document.activeElement;
            if (!element || element === document.body) return false;
            const style = getComputedStyle(element);
            return style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0;
        }"""
    )


def focused(page: Page) -> str:
    """A short description of the focused element, for assertion messages."""
    return page.evaluate(
        "() => { const e = document.activeElement;"
        " return `${e.tagName.toLowerCase()}#${e.id} ${e.textContent.trim().slice(0, 60)}`; }"
    )


def screenshot(page: Page, name: str, *, full_page: bool = True) -> None:
    """Saved for a person to look at; JPEG, because PNG encoding of long pages is slow."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"{name}.png", full_page=full_page)


def document_of(response: Response | None) -> str:
    assert response is not None
    return response.text()
