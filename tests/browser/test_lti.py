"""An LMS's course page frames the tool: the launch posts itself in the iframe, the learner
takes the quiz there in the launch's language, and the LMS receives the score."""

import re
from datetime import timedelta

import pytest
import requests
from django.core.management import call_command
from django.utils import timezone
from playwright.sync_api import Page, expect

from quizzes.lti.models import Platform
from quizzes.models import Assignment, Attempt
from tests.browser.helpers import LANGUAGES, t
from tests.factories import make_quiz
from tests.lti.conftest import launch
from tests.lti.platform import INSTRUCTOR, LmsPlatform


@pytest.fixture
def lms(transactional_db, live_server, settings):
    settings.SITE_URL = live_server.url
    # The LMS on the tool's host name ("localhost"), another port: framed by another origin.
    with LmsPlatform(host="localhost") as platform:
        platform.tool_jwks_url = live_server.url + "/lti/jwks/"
        Platform.objects.create(**platform.registration())
        yield platform


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_learner_takes_the_quiz_in_the_lms_frame(page: Page, lms, live_server, lang):
    quiz = make_quiz(questions=2)
    lms.launches["learner"] = lms.claims(sub="learner", quiz=quiz.slug, locale=lang)
    page.goto(f"{lms.url}/course?tool={live_server.url}&hint=learner")
    tool = page.frame_locator("iframe[name=tool]")
    for n in (1, 2):
        prompt = "Question {} prompt" if lang == "en" else "Énoncé de la question {}"
        expect(tool.get_by_text(prompt.format(n))).to_be_visible()
        choice = f"Q{n} choice 1" if lang == "en" else f"Q{n} choix 1"
        tool.get_by_label(choice).check()
        tool.get_by_role("button", name=t(lang, "Check answer")).click()
        last = t(lang, "See your results") if n == 2 else t(lang, "Next question")
        tool.get_by_role("link", name=last).click()
    expect(tool.locator("h1")).to_be_visible()
    attempt = Attempt.objects.get()
    assert attempt.completed_at is not None and attempt.assignment is not None
    assert attempt.language == lang
    call_command("db_worker", batch=True, interval=0, verbosity=0, startup_delay=False)
    [score] = lms.scores
    assert score["scoreGiven"] == 100 and score["userId"] == "learner"


def test_another_site_cannot_frame_the_quiz(page: Page, lms, live_server):
    """Without an LTI launch the site's pages refuse every frame."""
    make_quiz(questions=1)
    response = page.goto(live_server.url + "/en/")
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert response.headers["x-frame-options"] == "DENY"


def test_an_instructor_picks_a_quiz_from_the_lms_frame(page: Page, lms, live_server, nu_checker):
    """By keyboard, at 375 px: the picker's answer goes back to the LMS by itself (a form the
    LMS's origin may receive, posted by the site's script)."""
    page.set_viewport_size({"width": 375, "height": 800})
    quiz = make_quiz(questions=1)
    lms.launches["teacher"] = lms.deep_link_claims(sub="teacher")
    page.goto(f"{lms.url}/course?tool={live_server.url}&hint=teacher")
    frame = page.frame(name="tool")
    tool = page.frame_locator("iframe[name=tool]")
    expect(tool.get_by_role("heading", name="Choose a quiz for your course")).to_be_visible()
    assert nu_checker.errors(frame.content()) == []
    tool.get_by_label(quiz.title).focus()
    page.keyboard.press("Space")
    tool.get_by_role("button", name="Add to the course").focus()
    page.keyboard.press("Enter")
    expect(tool.get_by_text("Added.")).to_be_visible()
    [response] = lms.deep_link_responses
    assert response["JWT"].count(".") == 2


def test_a_refused_launch_shows_why(page: Page, lms, live_server, nu_checker):
    lms.launches["nobody"] = lms.claims(sub="nobody", quiz="no-such-quiz")
    page.goto(f"{lms.url}/course?tool={live_server.url}&hint=nobody")
    tool = page.frame_locator("iframe[name=tool]")
    expect(tool.get_by_role("alert")).to_contain_text("links to no quiz of the site")
    assert nu_checker.errors(page.frame(name="tool").content()) == []


def _timed_link(lms, live_server, minutes: int = 10):
    """The course's link to a quiz, made by its instructor's launch, then given a time limit
    on the class's assignment; the learner's launch is the browser's."""
    quiz = make_quiz(questions=2)
    claims = lms.claims(sub="teacher", roles=[INSTRUCTOR], quiz=quiz.slug)
    assert launch(requests.Session(), lms, live_server.url, claims).status_code == 200
    Assignment.objects.update(time_limit=timedelta(minutes=minutes))
    return quiz


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_timed_assignment_counts_down_in_the_lms_frame(page: Page, lms, live_server, lang):
    quiz = _timed_link(lms, live_server)
    lms.launches["learner"] = lms.claims(sub="learner", quiz=quiz.slug, locale=lang)
    page.goto(f"{lms.url}/course?tool={live_server.url}&hint=learner")
    tool = page.frame_locator("iframe[name=tool]")
    prompt = "Question 1 prompt" if lang == "en" else "Énoncé de la question 1"
    expect(tool.get_by_text(prompt)).to_be_visible()
    left = t(lang, "Time left: %(time)s", time="")
    expect(tool.locator("#countdown")).to_contain_text(re.compile(re.escape(left) + r"(9:5|10:0)"))
    attempt = Attempt.objects.get()
    assert attempt.deadline == attempt.started_at + timedelta(minutes=10)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("context_options", [{"java_script_enabled": False}])
def test_without_the_script_the_frame_shows_the_deadline(page: Page, lms, live_server, lang):
    quiz = _timed_link(lms, live_server)
    lms.launches["learner"] = lms.claims(sub="learner", quiz=quiz.slug, locale=lang)
    page.goto(f"{lms.url}/course?tool={live_server.url}&hint=learner")
    tool = page.frame_locator("iframe[name=tool]")
    tool.get_by_role("button", name="Continue").click()  # The LMS's launch form, unscripted.
    countdown = tool.locator("#countdown")
    expect(countdown).to_contain_text(
        t(lang, "Answers are taken until %(date)s %(time)s", date="", time="").split()[0]
    )
    attempt = Attempt.objects.get()
    expect(countdown).to_contain_text(timezone.localtime(attempt.deadline).strftime("%H:%M:%S"))
    assert attempt.deadline == attempt.started_at + timedelta(minutes=10)
    assert attempt.language == lang
