"""A timed assignment in a real browser, in both languages: an instructor assigns a quiz to
their class from its page (keyboard, 375 px); a learner starts it from My progress, answers
in time, and the time runs out mid-quiz: with the script, the countdown reaches zero and
the page goes to the results; without it, the page shows the deadline, and the answer
posted after it is not recorded. Pages valid, without axe-core violations."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission, User
from django.utils import timezone
from playwright.sync_api import Page, expect

from quizzes.classes.services import class_create, class_join
from quizzes.models import Assignment, Attempt
from tests.browser.helpers import LANGUAGES, axe_violations, screenshot, t
from tests.factories import make_quiz

PASSWORD = "a long enough passphrase"
WIDTH = 375
TIME_RAN_OUT = (
    "Time ran out: the server took no more answers after the deadline, and your attempt was "
    "submitted with the answers you gave in time."
)


def _sign_in(page: Page, lang: str, name: str) -> None:
    page.goto(f"/{lang}/accounts/login/")
    page.locator("#id_username").fill(name)
    page.locator("#id_password").fill(PASSWORD)
    with page.expect_navigation():
        page.locator("main button[type=submit]").click()


def _checked(page: Page, nu_checker, name: str, *, scripted: bool = True) -> None:
    screenshot(page, f"assignments-{name}")
    assert nu_checker.errors(page.content()) == [], page.url
    if scripted:
        assert axe_violations(page) == [], page.url
        assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH, page.url


@pytest.fixture
def timed(transactional_db) -> Assignment:
    """A class with ada in it, and a quiz of three questions assigned with a minute's limit."""
    teacher = User.objects.create_user("teacher", password=PASSWORD)
    teacher.user_permissions.add(Permission.objects.get(codename="add_class"))
    klass = class_create(name="Parallélisme, printemps", instructor=teacher)
    class_join(klass=klass, learner=User.objects.create_user("ada", password=PASSWORD))
    quiz = make_quiz(questions=3, choices=2)
    return Assignment.objects.create(
        klass=klass,
        quiz=quiz,
        time_limit=timedelta(minutes=1),
        closes_at=timezone.now() + timedelta(days=7),
        attempt_limit=2,
    )


def _start_from_my_progress(page: Page, lang: str) -> Attempt:
    _sign_in(page, lang, "ada")
    page.goto(f"/{lang}/progress/")
    expect(page.locator(".my-assignments")).to_contain_text(
        t(lang, "%(used)s of %(allowed)s attempts used", used=0, allowed=2)
    )
    with page.expect_navigation():
        page.get_by_role("button", name=t(lang, "Start"), exact=True).click()
    return Attempt.objects.get()


def _choice(lang: str, number: int) -> str:
    return f"Q{number} choice 1" if lang == "en" else f"Q{number} choix 1"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("context_options", [{"viewport": {"width": WIDTH, "height": 740}}])
def test_the_countdown_reaches_zero_mid_quiz_and_shows_the_results(page, timed, nu_checker, lang):
    attempt = _start_from_my_progress(page, lang)
    countdown = page.locator("#countdown")
    expect(countdown).to_contain_text(t(lang, "Time left: %(time)s", time="0:5"))
    _checked(page, nu_checker, f"question-{lang}")
    page.get_by_label(_choice(lang, 1)).check()
    page.get_by_role("button", name=t(lang, "Check answer")).click()
    page.locator("#feedback").wait_for()
    page.get_by_role("link", name=t(lang, "Next question")).click()
    expect(page.locator("h1")).to_contain_text("2")
    # Two seconds left by the server's clock, as the page will read them on its next load.
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() + timedelta(seconds=2))
    page.evaluate("Date.now = () => 0")  # A clock set back in the browser changes nothing.
    page.reload()
    expect(countdown).to_contain_text(t(lang, "Time left: %(time)s", time="0:0"))
    page.wait_for_url(f"**/{lang}/attempts/{attempt.public_id}/results/", timeout=6_000)
    expect(page.locator(".notice")).to_have_text(t(lang, TIME_RAN_OUT))
    expect(page.locator("#score")).to_contain_text("1 / 3")
    _checked(page, nu_checker, f"timed-out-{lang}")
    attempt.refresh_from_db()
    assert attempt.completed_at == attempt.deadline and attempt.answers.count() == 1


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("context_options", [{"java_script_enabled": False}])
def test_without_the_script_the_deadline_shows_and_a_late_answer_is_refused(
    page, timed, nu_checker, lang
):
    attempt = _start_from_my_progress(page, lang)
    deadline = timezone.localtime(attempt.deadline).strftime("%H:%M:%S")
    expect(page.locator("#countdown")).to_contain_text(deadline)
    expect(page.locator("#countdown")).to_contain_text(
        t(lang, "Answers are taken until %(date)s %(time)s", date="", time="").split()[0]
    )
    _checked(page, nu_checker, f"deadline-{lang}", scripted=False)
    page.get_by_label(_choice(lang, 1)).check()
    with page.expect_navigation():
        page.get_by_role("button", name=t(lang, "Check answer")).click()
    with page.expect_navigation():
        page.get_by_role("link", name=t(lang, "Next question")).click()
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now())
    page.get_by_label(_choice(lang, 2)).check()
    with page.expect_navigation():
        page.get_by_role("button", name=t(lang, "Check answer")).click()
    assert page.url.endswith(f"/{lang}/attempts/{attempt.public_id}/results/")
    expect(page.locator(".notice")).to_have_text(t(lang, TIME_RAN_OUT))
    expect(page.locator("#score")).to_contain_text("1 / 3")
    assert attempt.answers.count() == 1


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("context_options", [{"viewport": {"width": WIDTH, "height": 740}}])
def test_an_instructor_assigns_a_quiz_with_its_rules(page, timed, nu_checker, lang):
    klass = timed.klass
    _sign_in(page, lang, "teacher")
    page.goto(f"/{lang}/classes/{klass.pk}/")
    _checked(page, nu_checker, f"class-{lang}")
    page.get_by_role("link", name=t(lang, "Assign a quiz or a guide path")).click()
    page.get_by_label(t(lang, "Quiz or guide path")).select_option(f"quiz:{timed.quiz_id}")
    page.get_by_label(t(lang, "Closes (due date)")).fill("2030-06-01T18:00")
    page.get_by_label(t(lang, "Time limit (minutes)")).fill("20")
    page.get_by_label(t(lang, "Attempts allowed")).fill("0")
    page.get_by_label(t(lang, "Attempts allowed")).press("Enter")
    expect(page.locator(".errorlist")).to_be_visible()  # 0 attempts: refused.
    _checked(page, nu_checker, f"assign-refused-{lang}")
    page.get_by_label(t(lang, "Attempts allowed")).fill("3")
    with page.expect_navigation():
        page.get_by_label(t(lang, "Attempts allowed")).press("Enter")
    made = Assignment.objects.exclude(pk=timed.pk).get()
    assert (made.attempt_limit, made.time_limit) == (3, timedelta(minutes=20))
    expect(page.locator(".assignment-row")).to_have_count(2)
    page.locator(".assignment-row a").last.click()
    _checked(page, nu_checker, f"assignment-{lang}")
