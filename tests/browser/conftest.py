"""Browser tests: Playwright drives Debian's Chromium against pytest-django's live server.

`make test` installs Chromium (apt), axe-core and the Nu Html Checker (npm, into
node_modules/) before running them. Fixtures only: what the tests share besides them is in
helpers.py. Every test gets a browser context of its own (cookies, storage, cache, history,
pointer and focus all new), so none depends on what ran before it.
"""

import json
import os
import secrets
from io import StringIO

import pytest
from django.core.management import call_command
from django.http import HttpResponse
from django.utils import translation
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from quizzes.kinds.numerical import choice_value, plain
from quizzes.learning.identity import LEARNER_COOKIE
from quizzes.learning.services import answer_record, attempt_start
from quizzes.models import Attempt, Quiz
from quizzes.snapshots import drawn
from tests.browser.helpers import CHROMIUM, CHROMIUM_ARGS, DEMO_QUIZ, NuChecker
from tests.factories import content_of

# Playwright's sync API runs an asyncio event loop in the test thread, and Django refuses ORM
# calls from a thread with a running loop. Nothing else runs in that thread, so they are safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="session")
def browser() -> Browser:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def nu_checker() -> NuChecker:
    checker = NuChecker()
    yield checker
    checker.stop()


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


def _gap_response(choice, question) -> str:
    """What a gaps answer keeps of a gap that matched `choice`: a pick's id, an accepted
    answer without its stars, a number as a plain decimal."""
    kind = question.gaps[choice.gap - 1]
    if kind == "single":
        return str(choice.pk)
    if kind == "short_answer":
        return str(choice.text).replace("*", "")
    return plain(choice_value(choice))


@pytest.fixture
def browser_attempt(context, live_server, demo):
    """Makes an anonymous attempt at a demo quiz (the data parallelism one unless `slug` says)
    owned by the browser's learner key, with the first `answered` questions answered (odd ones
    right, even ones wrong; an ordering question by its order, a gaps question gap by gap),
    without clicking."""

    def make(*, answered: int = 0, lang: str = "en", slug: str = DEMO_QUIZ) -> Attempt:
        quiz = demo if slug == DEMO_QUIZ else Quiz.objects.get(slug=slug)
        key = secrets.token_hex(16)
        with translation.override(lang):
            attempt = attempt_start(quiz=quiz, user=None, learner_key=key)
        content = content_of(quiz)
        for number, question in enumerate(content.questions[:answered], 1):
            right = number % 2 == 1
            question = drawn(question, attempt)  # A calculated one's choices: its values.
            if question.kind == "ordering":  # In order, or its first two items swapped.
                items = [choice.pk for choice in question.choices]
                order = items if right else [*items[1::-1], *items[2:]]
                answer_record(
                    attempt=attempt,
                    quiz=content,
                    question=question,
                    choices=(),
                    response=",".join(map(str, order)),
                )
                continue
            if question.kind == "gaps":  # Each gap's first right answer, or known mistake.
                picks = [
                    next(c for c in question.choices if c.gap == gap and c.is_correct == right)
                    for gap in range(1, len(question.gaps) + 1)
                ]
                with translation.override(lang):
                    answer_record(
                        attempt=attempt,
                        quiz=content,
                        question=question,
                        choices=picks,
                        response=json.dumps([_gap_response(c, question) for c in picks]),
                    )
                continue
            choice = next(c for c in question.choices if c.is_correct == right)
            # A typed answer is its choice's text, stars left out (a short answer), or its
            # value (a number: a calculated question's for the attempt's variant).
            if question.type.by_picks:
                typed = None
            elif question.type.typed and question.kind == "short_answer":
                typed = str(choice.text).replace("*", "")
            else:
                typed = plain(choice_value(choice))
            with translation.override(lang):
                answer_record(
                    attempt=attempt,
                    quiz=content,
                    question=question,
                    choices=(choice,),
                    response=typed,
                )
        response = HttpResponse()
        response.set_signed_cookie(LEARNER_COOKIE, key, salt=LEARNER_COOKIE)
        cookie = {"name": LEARNER_COOKIE, "value": response.cookies[LEARNER_COOKIE].value}
        context.add_cookies([cookie | {"url": live_server.url}])
        return Attempt.objects.get(pk=attempt.pk)

    return make
