"""A learner's journey in a real browser, in both languages: a quiz with a mistake, My
progress and the home page's status, practising the missed question, signing up from a quiz
page, resetting a password from the email, multiple-choice questions, and the feedback on a
phone."""

import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.utils import translation
from playwright.sync_api import Page, expect

from quizzes.kinds.numerical import plain
from quizzes.models import Attempt, AttemptKind, Quiz
from tests.browser.helpers import LANGUAGES, fill_gaps, gap_values, put_in_order, screenshot, t
from tests.factories import choice_of, make_multiple, make_quiz, variant_of

MISSED = 2  # The question the learner gets wrong: 12 / 13, which passes.


def _title(quiz: Quiz, lang: str) -> str:
    with translation.override(lang):
        return quiz.title


def _answer(page: Page, quiz: Quiz, number: int, *, right: bool, lang: str) -> None:
    question = quiz.questions.get(position=number)
    if question.kind == "ordering":  # Moved into order, or checked as shown (never right).
        if right:
            put_in_order(page, lang, list(question.choices.values_list("pk", flat=True)))
    elif question.kind == "short_answer":  # An accepted answer, or a known mistake.
        page.locator("#text-answer").fill("DDP" if right else "FSDP")
    elif question.kind == "numerical":  # The value, or a known mistake's.
        page.locator("#number-answer").fill(choice_of(quiz, number, correct=right).text_en)
    elif question.kind == "gaps":  # Each gap's right answer, or its known mistake.
        fill_gaps(page, gap_values(question, right=right, lang=lang))
    elif question.kind == "calculated":  # The attempt's variant's answer, or a wrong one.
        attempt = Attempt.objects.filter(completed_at=None).get()
        page.locator("#number-answer").fill(
            plain(variant_of(attempt, question)["answer"]) if right else "-1"
        )
    else:
        # By its label, whatever its text shows (code, maths).
        choice = choice_of(quiz, number, correct=right)
        page.locator(f"label[for='choice-{choice.pk}']").click()
    page.get_by_role("button", name=t(lang, "Check answer")).click()
    expect(page.locator("#verdict")).to_contain_text(t(lang, "Correct." if right else "Not quite."))


def _next(page: Page, lang: str, last: bool) -> None:
    page.get_by_role("link", name=t(lang, "See your results" if last else "Next question")).click()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_mistake_shows_on_my_progress_and_home_and_gets_practised(page, demo, lang):
    page.goto(f"/{lang}/quizzes/{demo.slug}/")
    page.get_by_role("button", name=t(lang, "Start the quiz")).click()
    total = demo.questions.count()
    for number in range(1, total + 1):
        _answer(page, demo, number, right=number != MISSED, lang=lang)
        _next(page, lang, number == total)
    expect(page.locator("#score")).to_contain_text(f"{total - 1} / {total}")
    summary = page.locator("ol.summary li")
    expect(summary).to_have_count(total)
    expect(summary.nth(MISSED - 1)).to_contain_text(t(lang, "Wrong"))
    page.get_by_role("link", name=t(lang, "Show only my mistakes")).click()
    expect(page.locator("ol.review > li")).to_have_count(1)
    expect(page.locator(f"#review-{MISSED}")).to_be_visible()
    screenshot(page, f"journey-mistakes-{lang}")

    page.locator("header").get_by_role("link", name=t(lang, "My progress")).click()
    score = round(100 * (total - 1) / total)
    status = t(lang, "best %(best)s%%, last %(last)s%%", best=score, last=score)
    card = page.locator(".progress-quiz", has_text=_title(demo, lang))
    expect(card).to_contain_text(status)
    expect(card).to_contain_text(t(lang, "Passed"))
    screenshot(page, f"journey-progress-{lang}")
    page.goto(f"/{lang}/")
    expect(page.locator(".card", has_text=_title(demo, lang))).to_contain_text(status)

    page.goto(f"/{lang}/progress/")
    card.get_by_role("link", name=t(lang, "See the results")).click()
    page.get_by_role("button", name=re.compile(t(lang, "Practise the question I missed"))).click()
    expect(page.locator(".kicker .badge")).to_have_text(t(lang, "Practice"))
    heading = t(lang, "Question %(number)s of %(total)s", number=1, total=1)
    expect(page.get_by_role("heading", level=1)).to_have_text(heading)
    _answer(page, demo, MISSED, right=True, lang=lang)
    expect(page.locator(".kicker .badge")).to_have_text(t(lang, "Practice"))
    _next(page, lang, True)
    expect(page.locator("#score")).to_contain_text("1 / 1")
    expect(page.locator(".kicker .badge")).to_have_text(t(lang, "Practice"))
    practice = Attempt.objects.get(kind=AttemptKind.PRACTICE)
    assert practice.question_ids == [demo.questions.get(position=MISSED).pk]
    page.goto(f"/{lang}/progress/")
    expect(card.locator(".badge")).to_have_text(t(lang, "Practice"))
    expect(card).to_contain_text(status)  # Practice does not change the quiz's scores.


@pytest.mark.parametrize("lang", LANGUAGES)
def test_sign_up_from_a_quiz_page_lands_back_there(page, demo, lang):
    quiz_url = f"/{lang}/quizzes/{demo.slug}/"
    page.goto(quiz_url)
    page.locator("main a[href*='/accounts/signup/?next=']").click()
    page.locator("#id_username").fill(f"learner-{lang}")
    page.locator("#id_password1").fill("a long enough passphrase")
    page.locator("#id_password2").fill("a long enough passphrase")
    page.locator("main button[type=submit]").click()
    expect(page).to_have_url(re.compile(rf"{re.escape(quiz_url)}$"))
    expect(page.locator("header")).to_contain_text(f"learner-{lang}")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_reset_a_password_from_the_email(page, live_server, transactional_db, settings, lang):
    settings.SITE_URL = live_server.url  # The address the email's link is on.
    User.objects.create_user("ada", email="ada@example.org", password="the old passphrase")
    page.goto(f"/{lang}/accounts/login/")
    page.get_by_role("link", name=t(lang, "Forgot your password?")).click()
    page.locator("#id_email").fill("ada@example.org")
    page.locator("main button[type=submit]").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(t(lang, "Check your email"))
    (email,) = mail.outbox
    link = re.search(rf"{re.escape(live_server.url)}/\S+/reset/\S+/", email.body).group(0)
    page.goto(link)
    expect(page.get_by_role("heading", level=1)).to_have_text(t(lang, "Choose a new password"))
    page.locator("#id_new_password1").fill("a brand new passphrase")
    page.locator("#id_new_password2").fill("a brand new passphrase")
    page.locator("main button[type=submit]").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(t(lang, "Password changed"))
    page.goto(link)  # Used already.
    expect(page.get_by_role("heading", level=1)).to_have_text(t(lang, "This link no longer works"))
    page.goto(f"/{lang}/accounts/login/")
    page.locator("#id_username").fill("ada")
    page.locator("#id_password").fill("a brand new passphrase")
    page.locator("main button[type=submit]").click()
    expect(page.locator("header")).to_contain_text("ada")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_multiple_choice_rightly_and_wrongly(page, live_server, transactional_db, lang):
    quiz = make_quiz(slug="multiple", questions=2)
    make_multiple(quiz, 1)
    make_multiple(quiz, 2)
    page.goto(f"/{lang}/quizzes/multiple/")
    page.get_by_role("button", name=t(lang, "Start the quiz")).click()
    expect(page.locator("#choice-instruction")).to_contain_text(t(lang, "Select all that apply."))
    boxes = page.get_by_role("checkbox")
    expect(boxes).to_have_count(4)
    boxes.nth(0).check()
    boxes.nth(1).check()
    page.get_by_role("button", name=t(lang, "Check answer")).click()
    expect(page.locator("#verdict")).to_contain_text(t(lang, "Correct."))
    _next(page, lang, False)
    page.get_by_role("checkbox").nth(0).check()  # One of the two right ones only.
    page.get_by_role("button", name=t(lang, "Check answer")).click()
    expect(page.locator("#verdict")).to_contain_text(t(lang, "Not quite."))
    expect(page.locator(".review-choices li.correct:not(.picked)")).to_contain_text(
        t(lang, "Not ticked")
    )
    screenshot(page, f"journey-multiple-wrong-{lang}")
    attempt = Attempt.objects.get()
    assert [a.is_correct for a in attempt.answers.order_by("question__position")] == [True, False]


PHONE = {"viewport": {"width": 375, "height": 667}}


@pytest.mark.parametrize("context_options", [PHONE], ids=["375x667"])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_on_a_phone_the_verdict_and_next_are_in_view_after_answering(page, demo, lang):
    page.goto(f"/{lang}/quizzes/{demo.slug}/")
    page.get_by_role("button", name=t(lang, "Start the quiz")).click()
    total = demo.questions.count()
    for number in range(1, total + 1):
        _answer(page, demo, number, right=number % 3 != 0, lang=lang)
        last = number == total
        next_link = page.get_by_role(
            "link", name=t(lang, "See your results" if last else "Next question")
        )
        heading = page.get_by_role("heading", level=1)
        for element in (page.locator("#verdict"), next_link, heading):
            expect(element).to_be_in_viewport(ratio=1)
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        if number == 3:
            screenshot(page, f"journey-phone-feedback-{lang}", full_page=False)
        next_link.click()
    expect(page.locator("#score")).to_contain_text(f"/ {total}")
