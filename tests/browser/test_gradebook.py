"""The gradebook in a real browser, in both languages, at 375 px: a class's instructor opens it
from the class's page, the table scrolls in its own region with the learners' names kept in
view, and a grade leads to the review of the attempt that made it. Valid (Nu Html Checker),
without axe-core violations, no wider than the screen."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from playwright.sync_api import expect

from quizzes.classes.services import class_create, class_join
from quizzes.models import Grading
from tests.browser.helpers import LANGUAGES, axe_violations, screenshot, t
from tests.factories import make_assignment, make_quiz, take_assignment

PASSWORD = "a long enough passphrase"
WIDTH = 375
NOW = timezone.now()
DAY = timedelta(days=1)


@pytest.fixture
def context_options() -> dict:
    return {"viewport": {"width": WIDTH, "height": 800}}


def _checked(page, nu_checker, name: str) -> None:
    screenshot(page, f"gradebook-{name}")
    problems = {
        "Nu Html Checker": nu_checker.errors(page.content()),
        "axe": axe_violations(page),
        "wider than the screen": page.evaluate("document.documentElement.scrollWidth") > WIDTH,
    }
    assert {what: found for what, found in problems.items() if found} == {}, page.url


@pytest.mark.parametrize("lang", LANGUAGES)
def test_an_instructor_reads_the_gradebook_and_opens_a_review(
    page, live_server, nu_checker, transactional_db, lang
):
    # A plain account: a class's instructor, without the site-wide report permission.
    coach = User.objects.create_user("coach", password=PASSWORD)
    klass = class_create(name="Parallélisme des données, printemps", instructor=coach)
    learners = [User.objects.create_user(name) for name in ("ada", "bob", "chloé")]
    for learner in learners:
        class_join(klass=klass, learner=learner)
    assignments = [
        make_assignment(
            klass,
            make_quiz(slug=f"quiz-{n}", questions=4),
            closes_at=NOW + (n - 2) * DAY,
            grading=list(Grading)[n % 4],
        )
        for n in range(5)
    ]
    best = take_assignment(
        assignments[0], learners[0], right=3, started=NOW - 3 * DAY, finished=NOW - 3 * DAY
    )
    take_assignment(
        assignments[1], learners[1], right=1, answered=2, started=NOW - DAY, deadline=NOW + DAY
    )
    for assignment in assignments[2:]:
        take_assignment(assignment, learners[2], right=4, started=NOW - DAY, finished=NOW)

    page.goto(f"/{lang}/accounts/login/")
    page.locator("#id_username").fill("coach")
    page.locator("#id_password").fill(PASSWORD)
    with page.expect_navigation():
        page.locator("main button[type=submit]").click()
    page.goto(f"/{lang}/classes/{klass.pk}/")
    page.get_by_role("link", name=t(lang, "Gradebook"), exact=True).click()
    expect(page.locator("h1")).to_have_text(t(lang, "Gradebook"))
    rows = page.locator("table.gradebook tbody th[scope=row]")
    expect(rows).to_have_text(["ada", "bob", "chloé"])
    _checked(page, nu_checker, lang)

    # The table scrolls in its region; the learners' names stay where they were.
    region = page.locator(".table-scroll.gradebook")
    assert region.evaluate("(el) => el.scrollWidth > el.clientWidth")
    before = rows.first.bounding_box()["x"]
    region.evaluate("(el) => { el.scrollLeft = 400; }")
    assert region.evaluate("(el) => el.scrollLeft") > 0
    assert abs(rows.first.bounding_box()["x"] - before) < 1
    expect(page.locator("table.gradebook td.missing").first).to_contain_text(
        t(lang, "missing") if lang == "en" else "manquant"
    )

    # Ada's grade leads to her attempt's review.
    grade = page.locator("table.gradebook tbody tr").first.locator("td.grade a").first
    expect(grade).to_have_text(t(lang, "%(value)s%%", value=75))
    grade.focus()  # From the keyboard.
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url.endswith(f"/{lang}/reports/quizzes/quiz-0/attempts/{best.public_id}/")
    expect(page.locator("main")).to_contain_text("ada")
    _checked(page, nu_checker, f"review-{lang}")
