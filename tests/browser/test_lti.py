"""An LMS's course page frames the tool: the launch posts itself in the iframe, the learner
takes the quiz there in the launch's language, and the LMS receives the score."""

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from quizzes.lti.models import Platform
from quizzes.models import Attempt
from tests.browser.helpers import t
from tests.factories import make_quiz
from tests.lti.platform import LmsPlatform


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
