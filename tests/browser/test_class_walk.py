"""Issue 25's walk, end to end, as people do it, in both languages, each in a browser of
their own at a phone's width (375 px), through the pages only: an instructor makes a class
and reads its code and link; a learner joins by the link, another by the code; the
instructor assigns a quiz with a time limit and two attempts; the learner starts it from My
progress, answers a question, and the countdown reaches zero mid-quiz; the results say the
time ran out; the instructor reads the grade in the gradebook and opens the attempt's review
from its cell; the learner uses their second attempt; the instructor gives them an extra one
(the gradebook marks it) and the learner starts again.

Every page is valid, without axe-core violations, no wider than the screen (the gradebook's
table scrolls in its own region), and in French reads as French: its typography's no-break
spaces, no English left. The only shortcuts through the database: the accounts and the quiz,
and the attempt's deadline moved to a few seconds ahead so that the test need not wait a
minute."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission, User
from django.utils import timezone
from playwright.sync_api import BrowserContext, Page, expect

from quizzes.models import Attempt, Class
from tests.browser.helpers import LANGUAGES, axe_violations, screenshot, t
from tests.factories import make_quiz

PASSWORD = "a long enough passphrase"
WIDTH = 375
TIME_RAN_OUT = (
    "Time ran out: the server took no more answers after the deadline, and your attempt was "
    "submitted with the answers you gave in time."
)
# French typography: a no-break space before ":" and "»" and after "«", a narrow one before
# ";", "?", "!" and "%" (a plain space or none is the mistake); the typographic apostrophe.
FRENCH_MISTAKES = {
    "space before a colon": re.compile(r"(?:\S|^) :|[^\s\u00a0\d/]:(?=\s)", re.M),
    "space before ; ? ! %": re.compile(r"(?: |[^\s\u00a0\u202f])[;?!%](?=\s|$)", re.M),
    "space inside « »": re.compile(r"«[^\u00a0]|[^\u00a0]»"),
    "straight apostrophe": re.compile(r"[^\W\d_]'[^\W\d_]"),
}
# Words that only an English page shows: a page in French showing one left something out.
ENGLISH = re.compile(
    r"\b(the|and|of|your|attempts?|learners?|class|quiz path|grade|time limit|due|"
    r"joining|sign in|assignment)\b",
    re.I,
)


@pytest.fixture
def context_options() -> dict:
    return {"viewport": {"width": WIDTH, "height": 800}}


def _browser(browser, live_server) -> Page:
    """Another person's browser, at the same width."""
    other: BrowserContext = browser.new_context(
        base_url=live_server.url, viewport={"width": WIDTH, "height": 800}
    )
    other.set_default_timeout(10_000)
    return other.new_page()


def _sign_in(page: Page, name: str) -> None:
    page.locator("#id_username").fill(name)
    page.locator("#id_password").fill(PASSWORD)
    with page.expect_navigation():
        page.locator("main button[type=submit]").click()


def _french_mistakes(page: Page) -> dict[str, list[str]]:
    """What reads wrong in a French page's text (the names people gave excepted)."""
    text = page.evaluate(
        """() => {
            const copy = document.body.cloneNode(true);
            copy.querySelectorAll('[lang]:not([lang^="fr"]), .class-name, code, input')
                .forEach((element) => element.remove());
            return copy.innerText;
        }"""
    )
    found = {what: pattern.findall(text) for what, pattern in FRENCH_MISTAKES.items()}
    found["English words"] = ENGLISH.findall(text)
    return {what: hits for what, hits in found.items() if hits}


def _too_wide(page: Page) -> list[str]:
    """What makes the page wider than the screen: the elements past its edge (that a
    scrolling region holds, last)."""
    if page.evaluate("document.documentElement.scrollWidth") <= WIDTH:
        return []
    return page.evaluate(
        """(width) => [...document.querySelectorAll("body *")]
            .filter((e) => e.getBoundingClientRect().right > width + 1)
            .sort((a, b) => !!a.closest(".table-scroll") - !!b.closest(".table-scroll"))
            .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${e.textContent.trim()
                .slice(0, 40)}`)""",
        WIDTH,
    ) or ["the page, though nothing in it sticks out"]


def _checked(page: Page, nu_checker, lang: str, name: str) -> None:
    """The page as a person sees it (a screenshot in var/screenshots/), and its checks."""
    screenshot(page, f"class-walk-{lang}-{name}")
    problems = {
        "Nu Html Checker": nu_checker.errors(page.content()),
        "axe": axe_violations(page),
        "wider than the screen": _too_wide(page),
        "French": _french_mistakes(page) if lang == "fr" else {},
    }
    assert {what: found for what, found in problems.items() if found} == {}, page.url


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_class_from_its_making_to_an_override(
    page, browser, live_server, nu_checker, settings, transactional_db, lang
):
    settings.SITE_URL = live_server.url  # The address the join link is on.
    teacher = User.objects.create_user("teacher", password=PASSWORD)
    teacher.user_permissions.add(Permission.objects.get(codename="add_class"))
    for name in ("ada", "bob"):
        User.objects.create_user(name, password=PASSWORD)
    quiz = make_quiz(questions=3, choices=2)
    title = quiz.title_fr if lang == "fr" else quiz.title_en

    # The instructor makes a class and reads its code and link.
    page.goto(f"/{lang}/accounts/login/")
    _sign_in(page, "teacher")
    page.get_by_role("link", name=t(lang, "Classes"), exact=True).click()
    _checked(page, nu_checker, lang, "01-classes")
    name = page.get_by_label(t(lang, "Name of the class"))
    name.fill("Parallélisme des données, printemps 2027")
    with page.expect_navigation():
        name.press("Enter")
    expect(page.locator(".messages")).to_contain_text(
        t(lang, "Your class is made: give your learners its link or code.")
    )
    code = page.locator(".join-code").inner_text()
    link = page.get_by_label(t(lang, "Join link")).input_value()
    klass = Class.objects.get()
    assert link == f"{live_server.url}/{lang}/join/{klass.token}/"
    expect(page.locator("#joining + p a")).to_have_text(f"{live_server.url}/{lang}/join/")
    _checked(page, nu_checker, lang, "02-class-made")

    # Ada opens the link, signs in on the way, and joins; Bob types the code.
    ada = _browser(browser, live_server)
    ada.goto(link)
    _sign_in(ada, "ada")
    _checked(ada, nu_checker, lang, "03-join-by-link")
    with ada.expect_navigation():
        ada.get_by_role("button", name=t(lang, "Join the class")).click()
    expect(ada.locator(".messages")).to_contain_text(
        t(lang, "You joined %(name)s.", name=klass.name)
    )
    _checked(ada, nu_checker, lang, "04-joined")
    bob = _browser(browser, live_server)
    bob.goto(f"/{lang}/join/")
    _sign_in(bob, "bob")
    _checked(bob, nu_checker, lang, "05-join-by-code")
    typed = bob.get_by_label(t(lang, "Class code"))
    typed.fill(code.lower())
    with bob.expect_navigation():
        typed.press("Enter")
    with bob.expect_navigation():
        bob.get_by_role("button", name=t(lang, "Join the class")).click()
    expect(bob.locator("#my-classes + ul .class-name")).to_have_text(klass.name)

    # The instructor sees them both and assigns the quiz: a minute, two attempts.
    page.reload()
    expect(page.locator("table.report tbody th")).to_have_text(["ada", "bob"])
    page.get_by_role("link", name=t(lang, "Assign a quiz or a guide path")).click()
    _checked(page, nu_checker, lang, "06-assign")
    page.get_by_label(t(lang, "Quiz or guide path")).select_option(
        label=t(lang, "Quiz: %(title)s", title=title)
    )
    due = timezone.localtime() + timedelta(days=7)
    page.get_by_label(t(lang, "Closes (due date)")).fill(due.strftime("%Y-%m-%dT%H:%M"))
    page.get_by_label(t(lang, "Time limit (minutes)")).fill("1")
    page.get_by_label(t(lang, "Attempts allowed")).fill("2")
    with page.expect_navigation():
        page.get_by_role("button", name=t(lang, "Assign")).click()
    expect(page.locator(".assignment-row th")).to_have_text([title])
    _checked(page, nu_checker, lang, "07-assigned")

    # Ada starts it from My progress and answers the first question.
    ada.locator("header").get_by_role("link", name=t(lang, "My progress")).click()
    assignment = ada.locator(".my-assignments li")
    expect(assignment).to_contain_text(
        t(lang, "%(used)s of %(allowed)s attempts used", used=0, allowed=2)
    )
    _checked(ada, nu_checker, lang, "08-my-progress")
    with ada.expect_navigation():
        assignment.get_by_role("button", name=t(lang, "Start"), exact=True).click()
    countdown = ada.locator("#countdown")
    expect(countdown).to_contain_text(t(lang, "Time left: %(time)s", time="0:5"))
    _checked(ada, nu_checker, lang, "09-question")
    ada.get_by_label("Q1 choice 1" if lang == "en" else "Q1 choix 1").check()
    ada.get_by_role("button", name=t(lang, "Check answer")).click()
    ada.locator("#feedback").wait_for()
    ada.get_by_role("link", name=t(lang, "Next question")).click()
    expect(ada.locator("h1")).to_contain_text("2")

    # Three seconds left by the server's clock (not a minute: the test would wait), read by
    # the page on its next load; the countdown reaches zero and the results show.
    first = Attempt.objects.get()
    Attempt.objects.filter(pk=first.pk).update(deadline=timezone.now() + timedelta(seconds=3))
    ada.reload()
    expect(countdown).to_contain_text(t(lang, "Time left: %(time)s", time="0:0"))
    _checked(ada, nu_checker, lang, "10-countdown")
    ada.wait_for_url(f"**/{lang}/attempts/{first.public_id}/results/", timeout=8_000)
    expect(ada.locator(".notice")).to_have_text(t(lang, TIME_RAN_OUT))
    expect(ada.locator("#score")).to_contain_text("1 / 3")
    _checked(ada, nu_checker, lang, "11-time-ran-out")

    # The instructor reads Ada's grade and opens the review from its cell.
    page.get_by_role("link", name=t(lang, "Gradebook"), exact=True).click()
    ada_row = page.locator("table.gradebook tbody tr").filter(has_text="ada")
    grade = ada_row.locator("td.grade a")
    expect(grade).to_have_text(t(lang, "%(value)s%%", value=33))
    _checked(page, nu_checker, lang, "12-gradebook")
    with page.expect_navigation():
        grade.click()
    assert page.url.endswith(f"/{lang}/reports/quizzes/{quiz.slug}/attempts/{first.public_id}/")
    expect(page.locator("main")).to_contain_text("ada")
    _checked(page, nu_checker, lang, "13-review")

    # Ada uses her second attempt, answering all three questions in time: she is done.
    ada.locator("header").get_by_role("link", name=t(lang, "My progress")).click()
    with ada.expect_navigation():
        assignment.get_by_role("button", name=t(lang, "Start"), exact=True).click()
    for number in (1, 2, 3):
        ada.get_by_label(f"Q{number} choice 1" if lang == "en" else f"Q{number} choix 1").check()
        ada.get_by_role("button", name=t(lang, "Check answer")).click()
        ada.locator("#feedback").wait_for()
        if number < 3:
            ada.get_by_role("link", name=t(lang, "Next question")).click()
    ada.locator("header").get_by_role("link", name=t(lang, "My progress")).click()
    expect(assignment).to_contain_text(
        t(lang, "%(used)s of %(allowed)s attempts used", used=2, allowed=2)
    )
    expect(assignment.get_by_role("button", name=t(lang, "Start"), exact=True)).to_have_count(0)
    with ada.expect_navigation():  # Her last results, from My progress.
        assignment.get_by_role("link", name=t(lang, "Last results")).click()
    expect(ada.locator("#score")).to_contain_text("3 / 3")
    ada.go_back()
    _checked(ada, nu_checker, lang, "14-attempts-used")

    # The instructor gives her an extra attempt; the gradebook marks it.
    page.get_by_role("link", name=t(lang, "Classes"), exact=True).click()
    page.get_by_role("link", name=klass.name).click()
    page.locator(".assignment-row a").click()
    page.get_by_role("combobox", name=t(lang, "Learner")).select_option(label="ada")
    page.get_by_label(t(lang, "Extra attempts")).fill("1")
    with page.expect_navigation():
        page.get_by_role("button", name=t(lang, "Save the override")).click()
    expect(page.locator(".override-row strong")).to_have_text(["ada"])
    _checked(page, nu_checker, lang, "15-override")
    page.get_by_role("link", name=klass.name).click()  # Its kicker.
    page.get_by_role("link", name=t(lang, "Gradebook"), exact=True).click()
    expect(ada_row.locator("td.grade a")).to_have_text(t(lang, "%(value)s%%", value=100))
    expect(ada_row.locator(".override")).to_have_attribute("title", re.compile("teacher"))
    _checked(page, nu_checker, lang, "16-gradebook-override")

    # Ada starts again.
    ada.reload()
    expect(assignment).to_contain_text(
        t(lang, "%(used)s of %(allowed)s attempts used", used=2, allowed=3)
    )
    with ada.expect_navigation():
        assignment.get_by_role("button", name=t(lang, "Start"), exact=True).click()
    expect(ada.locator("#countdown")).to_be_visible()
    assert Attempt.objects.filter(user__username="ada").count() == 3
    _checked(ada, nu_checker, lang, "17-third-attempt")
