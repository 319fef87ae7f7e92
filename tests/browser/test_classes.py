"""Classes in a real browser, in both languages, at a phone's width: an instructor makes a
class; learners, each in a browser of their own, join it by its link (signing in on the way)
and by its code typed from the keyboard; the roster shows them; the instructor removes one.
Every page valid (Nu Html Checker), without axe-core violations, no wider than the screen."""

import pytest
from django.contrib.auth.models import Permission, User
from playwright.sync_api import BrowserContext, Page, expect

from quizzes.models import Class, Membership
from tests.browser.helpers import LANGUAGES, axe_violations, screenshot, t

PASSWORD = "a long enough passphrase"
WIDTH = 320


@pytest.fixture
def context_options() -> dict:
    return {"viewport": {"width": WIDTH, "height": 800}}


def _user(name: str, *, instructor: bool = False) -> User:
    user = User.objects.create_user(name, password=PASSWORD)
    if instructor:  # The Instructors group's permission (a flushed database has no groups).
        user.user_permissions.add(Permission.objects.get(codename="add_class"))
    return user


def _sign_in_form(page: Page, name: str) -> None:
    page.locator("#id_username").fill(name)
    page.locator("#id_password").fill(PASSWORD)
    with page.expect_navigation():
        page.locator("main button[type=submit]").click()


def _checked(page: Page, nu_checker, name: str) -> None:
    screenshot(page, f"classes-{name}")
    problems = {
        "Nu Html Checker": nu_checker.errors(page.content()),
        "axe": axe_violations(page),
        "wider than the screen": page.evaluate("document.documentElement.scrollWidth") > WIDTH,
    }
    assert {what: found for what, found in problems.items() if found} == {}, page.url


def _learner_page(browser, live_server) -> Page:
    other: BrowserContext = browser.new_context(
        base_url=live_server.url, viewport={"width": WIDTH, "height": 800}
    )
    other.set_default_timeout(10_000)
    return other.new_page()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_an_instructor_makes_a_class_learners_join_and_one_is_removed(
    page, browser, live_server, nu_checker, settings, transactional_db, lang
):
    settings.SITE_URL = live_server.url  # The address the join link is on.
    _user("teacher", instructor=True)
    _user("ada")
    _user("bob")
    page.goto(f"/{lang}/accounts/login/")
    _sign_in_form(page, "teacher")
    page.get_by_role("link", name=t(lang, "Classes"), exact=True).click()
    expect(page.locator("h1")).to_have_text(t(lang, "Classes you teach"))
    _checked(page, nu_checker, f"list-empty-{lang}")
    name = page.get_by_label(t(lang, "Name of the class"))
    name.fill("Parallélisme des données, printemps 2027")
    with page.expect_navigation():
        name.press("Enter")  # From the keyboard.
    klass = Class.objects.get()
    expect(page.locator("h1")).to_have_text(klass.name)
    expect(page.locator(".join-code")).to_have_text(klass.code_shown)
    link = page.get_by_label(t(lang, "Join link")).input_value()
    assert link == f"{live_server.url}/{lang}/join/{klass.token}/"
    _checked(page, nu_checker, f"roster-empty-{lang}")

    # Ada opens the link signed out, signs in on the way, and joins.
    ada = _learner_page(browser, live_server)
    ada.goto(link)
    _sign_in_form(ada, "ada")
    assert ada.url == link
    expect(ada.locator(".class-name")).to_have_text(klass.name)
    _checked(ada, nu_checker, f"join-link-{lang}")
    with ada.expect_navigation():
        ada.get_by_role("button", name=t(lang, "Join the class")).click()
    assert ada.url.endswith(f"/{lang}/progress/")
    expect(ada.locator("#my-classes + ul .class-name")).to_have_text(klass.name)
    _checked(ada, nu_checker, f"progress-{lang}")

    # Bob types the code, in small letters with a space, and submits from the keyboard.
    bob = _learner_page(browser, live_server)
    bob.goto(f"/{lang}/accounts/login/?next=/{lang}/join/")
    _sign_in_form(bob, "bob")
    _checked(bob, nu_checker, f"join-code-{lang}")
    code = bob.get_by_label(t(lang, "Class code"))
    code.fill(klass.code_shown.lower().replace("-", " "))
    with bob.expect_navigation():
        code.press("Enter")
    bob.get_by_role("button", name=t(lang, "Join the class")).click()
    expect(bob.locator("#my-classes + ul .class-name")).to_have_text(klass.name)

    # The roster shows both; the instructor removes Bob, asked first.
    page.reload()
    rows = page.locator("table.report tbody th")
    expect(rows).to_have_text(["ada", "bob"])
    _checked(page, nu_checker, f"roster-{lang}")
    page.get_by_role("link", name=t(lang, "Remove %(name)s…", name="bob")).click()
    _checked(page, nu_checker, f"remove-{lang}")
    page.get_by_role("button", name=t(lang, "Remove %(name)s", name="bob")).click()
    expect(rows).to_have_text(["ada"])
    assert list(Membership.objects.values_list("learner__username", flat=True)) == ["ada"]

    # Joining closed: Bob's old link now says so.
    page.get_by_role("button", name=t(lang, "Close joining")).click()
    expect(page.locator(".join-code")).to_have_count(0)
    response = bob.goto(link)
    assert response.status == 403
    expect(bob.locator("h1")).to_have_text(t(lang, "Joining is closed"))
    _checked(bob, nu_checker, f"closed-{lang}")
    page.goto(f"/{lang}/classes/")
    expect(page.locator("table.report tbody td.number")).to_have_text(["1"])
    _checked(page, nu_checker, f"list-{lang}")
