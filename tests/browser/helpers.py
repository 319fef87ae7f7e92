"""What the browser tests share besides fixtures: the tools' paths, the checks they run on a
page (axe-core, the Nu Html Checker, the focus), screenshots, and the pages that more than one
test module opens. The fixtures are in conftest.py."""

import io
import json
import socket
import subprocess
import time
import urllib.request

import pytest
from django.conf import settings
from django.contrib.auth.models import Permission, User
from django.core.management import call_command
from django.utils import translation
from playwright.sync_api import Page, Response, expect

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
# A question kind's page taken both ways: with the script on a 320 px phone, and without it.
CONTEXTS = pytest.mark.parametrize(
    "context_options",
    [{"viewport": {"width": 320, "height": 640}}, {"java_script_enabled": False}],
    ids=["script-320px", "no-script"],
)
DEMO_QUIZ = "data-parallelism-quiz"
LANGUAGES = [code for code, _name in settings.LANGUAGES]


def t(lang: str, message: str, **values) -> str:
    """The site's own translation of `message`, as the page in `lang` shows it."""
    with translation.override(lang):
        return translation.gettext(message) % values if values else translation.gettext(message)


def settle(page: Page) -> None:
    """Waits until the page's CSS transitions and animations have run to their end.

    A change of colour scheme or width (or a hover) starts the transitions of the colours
    (Django's admin fades its links' colours in 0.15 s): measured before they end, a contrast
    is neither the old colours' nor the new ones', and depends on how busy the machine is.
    """
    page.evaluate(
        "() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null)))"
    )


def axe_violations(page: Page) -> list[str]:
    """Every axe-core violation on the page, whatever its impact, one line each."""
    # Through the DevTools protocol, which the page's Content-Security-Policy does not govern:
    # a <script> tag added to the page would be inline script, which it refuses.
    settle(page)
    page.evaluate(AXE.read_text())
    result = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{violation['id']} ({violation['impact']}): {node['target']} {node['failureSummary']}"
        for violation in result["violations"]
        for node in violation["nodes"]
    ]


class NuChecker:
    """The Nu Html Checker as a web service on a free loopback port, one JVM for the whole run
    (a JVM start takes seconds): started at once, waited for on the first check."""

    def __init__(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/?out=json"
        self.process = subprocess.Popen(
            [
                "java",
                "-Dnu.validator.servlet.bind-address=127.0.0.1",
                "-cp",
                str(VNU),
                "nu.validator.servlet.Main",
                str(self.port),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.ready = False

    def _wait_until_ready(self, seconds: float = 120) -> None:
        deadline = time.monotonic() + seconds
        while not self.ready:
            assert self.process.poll() is None, "the Nu Html Checker stopped"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/", timeout=5):
                    self.ready = True
            except OSError:
                assert time.monotonic() < deadline, "the Nu Html Checker did not start"
                time.sleep(0.25)

    def errors(self, html: str) -> list[str]:
        """The checker's errors in an HTML document, one line each."""
        self._wait_until_ready()
        request = urllib.request.Request(
            self.url,
            data=html.encode(),
            headers={"Content-Type": "text/html; charset=utf-8"},
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            messages = json.load(response)["messages"]
        return [
            f"line {message.get('lastLine')}: {message['message']}"
            for message in messages
            if message["type"] in {"error", "non-document-error"}
        ]

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


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
    """Saved in var/screenshots/ for a person to look at."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"{name}.png", full_page=full_page)


def document_of(response: Response | None) -> str:
    assert response is not None
    return response.text()


ADMIN_PASSWORD = "a long enough passphrase"
# A GIFT file of a new category: one question imported, one imported with a loss, one left out.
IMPORT_GIFT = b"""$CATEGORY: $course$/top/Networks

::Ports::Which port does HTTP use?{=80 ~21 ~443}

::Weights::Which are transport protocols?{~%50%TCP ~%50%UDP ~%-50%IP}

How are you?{}
"""


def sign_in_to_admin(page: Page, lang: str) -> None:
    """A superuser signed in to the admin, which speaks the browser's language."""
    if not User.objects.filter(username="admin").exists():
        User.objects.create_superuser("admin", password=ADMIN_PASSWORD)
    page.set_extra_http_headers({"Accept-Language": lang})
    page.goto("/admin/login/?next=/admin/")
    page.locator("#id_username").fill("admin")
    page.locator("#id_password").fill(ADMIN_PASSWORD)
    with page.expect_navigation():
        page.locator("input[type=submit]").click()


def admin_import_preview(page: Page, browser_attempt, lang: str) -> Response:
    """The admin's preview of IMPORT_GIFT, uploaded by a superuser speaking `lang`."""
    sign_in_to_admin(page, lang)
    page.goto("/admin/quizzes/quiz/import/")
    upload = {"name": "networks.gift", "mimeType": "text/plain", "buffer": IMPORT_GIFT}
    page.locator("#id_file").set_input_files(upload)
    with page.expect_navigation() as navigation:
        page.locator("input[type=submit].default").click()
    return navigation.value


def sign_in_as_instructor(page: Page, lang: str) -> None:
    """An instructor with a few dozen finished attempts of the demo quiz to read reports about,
    signed in through the site's form."""
    call_command("seedattempts", DEMO_QUIZ, "--count", "40", stdout=io.StringIO())
    user = User.objects.create_user("instructor", password="a long enough passphrase")
    user.user_permissions.add(Permission.objects.get(codename="view_report"))
    page.goto(f"/{lang}/accounts/login/")
    page.locator("#id_username").fill("instructor")
    page.locator("#id_password").fill("a long enough passphrase")
    with page.expect_navigation():
        page.locator("main button[type=submit]").click()


def shown_order(page: Page) -> list[int]:
    """An ordering question's items as the page lists them, by their choices' ids."""
    return page.evaluate(
        "[...document.querySelectorAll('ol.ordering [name=choice]')].map((s) => +s.id.slice(9))"
    )


def put_in_order(page: Page, lang: str, order: list[int]) -> None:
    """With the script: an ordering question's items (by their choices' ids) moved up by their
    Move up buttons, pressed from the keyboard, until the list is `order`."""
    for place, pk in enumerate(order):
        for _ in range(shown_order(page).index(pk) - place):
            item = page.locator(f"li:has(#item-{pk})")
            button = item.get_by_role("button", name=t(lang, "Move up"))
            button.focus()
            button.press("Enter")
            expect(button).to_be_focused()  # Even once the item is first (aria-disabled).
    assert shown_order(page) == order


def gap_values(question, *, right: bool, lang: str) -> list[str]:
    """What a learner gives each gap of a gaps question (a `Question`), in order: its first
    right answer, or its first known mistake; a choice by its text in `lang`, an accepted
    answer without its stars, a number as the quiz file writes it."""
    values = []
    for number, kind in enumerate(question.gaps, 1):
        mine = question.choices.filter(gap=number, is_correct=right).order_by("position")
        text = str(getattr(mine.first(), f"text_{lang}"))
        values.append(text.replace("*", "") if kind == "short_answer" else text)
    return values


def fill_gaps(page: Page, values: list[str]) -> None:
    """Fills the gaps of the shown question in order: a gap's list set to the choice of that
    text, a gap's box typed in."""
    for number, value in enumerate(values, 1):
        gap = page.locator(f"#gap-{number}")
        if gap.evaluate("element => element.tagName") == "SELECT":
            gap.select_option(label=value)
        else:
            gap.fill(value)


def scripted(page: Page) -> bool:
    """Whether a question test's page runs its script: the script-320px runs of its
    CONTEXTS (the no-script ones keep the wide default screen)."""
    return page.viewport_size["width"] == 320


def checked(page: Page, nu_checker: "NuChecker", html: str) -> None:
    """Valid HTML; where the page runs script (axe-core and the width check run in the page,
    which a page without script can't), no axe violation and nothing wider than its screen."""
    assert nu_checker.errors(html) == []
    if scripted(page):
        width = page.viewport_size["width"]
        assert page.evaluate("document.documentElement.scrollWidth") <= width, page.url
        assert axe_violations(page) == []


def check_answer(page: Page, lang: str) -> str:
    """Clicks Check answer; the HTML of the page as it is then (a refusal's 400 page without
    the script)."""
    button = page.get_by_role("button", name=t(lang, "Check answer"))
    if scripted(page):
        button.click()
        page.locator("#feedback, #choice-error").first.wait_for()
        return page.content()
    with page.expect_navigation() as navigation:
        button.click()
    return navigation.value.text() if navigation.value.status == 400 else page.content()
