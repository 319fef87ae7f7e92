"""The reports at a phone's width (375 px) and a laptop's (1280 px), in every language: the
item-analysis table fits its column or scrolls inside it, in a region a keyboard can reach;
an instructor's review of one attempt is valid, accessible and no wider than the screen; a
gaps question's gaps in the report and in the review the same, at 320 px."""

import io

import pytest
from django.contrib.auth.models import Permission, User
from django.core.management import call_command
from playwright.sync_api import expect

from quizzes.models import Attempt
from tests.browser.helpers import (
    DEMO_QUIZ,
    LANGUAGES,
    axe_violations,
    document_of,
    screenshot,
    settle,
    sign_in_as_instructor,
    t,
)
from tests.factories import make_gaps, make_quiz

WIDTHS = [375, 1280]

TABLE_SIZES = """(selector) => {
    const region = document.querySelector(selector);
    const table = region.querySelector("table");
    const column = region.parentElement.getBoundingClientRect();
    const box = region.getBoundingClientRect();
    return {
        page: document.documentElement.scrollWidth,
        column: [Math.round(column.left), Math.round(column.right)],
        region: [Math.round(box.left), Math.round(box.right)],
        table: Math.round(table.getBoundingClientRect().width),
        scrolls: region.scrollWidth > region.clientWidth,
        overflow: getComputedStyle(region).overflowX,
        role: region.getAttribute("role"),
        tabindex: region.getAttribute("tabindex"),
        name: document.getElementById(region.getAttribute("aria-labelledby"))?.textContent
            || region.getAttribute("aria-label"),
    };
}"""


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_item_table_fits_its_column_or_scrolls_inside_it(page, demo, lang, width):
    page.set_viewport_size({"width": width, "height": 900})
    sign_in_as_instructor(page, lang)
    page.goto(f"/{lang}/reports/quizzes/{DEMO_QUIZ}/?attempts=all")
    selector = ".table-scroll[aria-labelledby=items-caption]"
    sizes = page.evaluate(TABLE_SIZES, selector)
    screenshot(page, f"report-items-{lang}-{width}px")
    assert sizes["page"] <= width, sizes  # The page never scrolls sideways.
    assert sizes["column"][0] <= sizes["region"][0] and sizes["region"][1] <= sizes["column"][1]
    assert sizes["role"] == "region" and sizes["tabindex"] == "0" and sizes["name"], sizes
    if width >= 1280:  # The reports' wider column holds the whole table.
        assert not sizes["scrolls"] and sizes["table"] <= sizes["region"][1] - sizes["region"][0]
    if sizes["table"] > sizes["region"][1] - sizes["region"][0]:
        assert sizes["scrolls"] and sizes["overflow"] == "auto", sizes
        region = page.locator(selector)
        region.focus()
        page.keyboard.press("ArrowRight")  # A keyboard scrolls it (smoothly: wait for it).
        scrolled = 0
        for _ in range(20):
            scrolled = region.evaluate("element => element.scrollLeft")
            if scrolled:
                break
            page.wait_for_timeout(100)
        assert scrolled > 0
    assert axe_violations(page) == []


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_attempt_review_from_the_report(page, demo, nu_checker, lang, width):
    page.set_viewport_size({"width": width, "height": 900})
    sign_in_as_instructor(page, lang)
    page.goto(f"/{lang}/reports/quizzes/{DEMO_QUIZ}/")
    page.get_by_role("link", name=t(lang, "Every attempt, one by one")).click()
    link = page.locator("table.report tbody th a").first
    public_id = link.get_attribute("href").rstrip("/").rsplit("/", 1)[1]
    attempt = Attempt.objects.get(public_id=public_id)
    with page.expect_navigation() as navigation:
        link.click()
    html = document_of(navigation.value)
    screenshot(page, f"report-attempt-{lang}-{width}px")
    assert page.locator("h1").inner_text().startswith(t(lang, "Attempt of %(name)s", name="")[:5])
    questions = page.locator("ol.review > li")
    answered = attempt.answers.count()
    # A finished attempt shows the questions it answered; an unfinished one, all it asks.
    assert questions.count() == (answered if attempt.completed_at else demo.questions.count())
    verdicts = ", ".join(
        f"ol.review > li .verdict.is-{verdict}" for verdict in ("correct", "partial", "wrong")
    )
    assert page.locator(verdicts).count() == answered
    assert questions.first.locator(".prompt").get_attribute("lang") == attempt.language
    assert page.locator(".review-choices li.picked").count() >= answered
    problems = {
        "Nu Html Checker": nu_checker.errors(html),
        "axe": axe_violations(page),
        "wider than the screen": page.evaluate("document.documentElement.scrollWidth") > width,
    }
    assert {what: found for what, found in problems.items() if found} == {}


def _checked_at_320_px(page, nu_checker, html: str, name: str) -> dict:
    """What is wrong with the page shown: its HTML (Nu), axe in light and dark, its width."""
    screenshot(page, name)
    problems = {"Nu Html Checker": nu_checker.errors(html), "axe, light": axe_violations(page)}
    page.emulate_media(color_scheme="dark")
    settle(page)
    problems["axe, dark"] = axe_violations(page)
    page.emulate_media(color_scheme="light")
    problems["wider than 320 px"] = page.evaluate("document.documentElement.scrollWidth > 320")
    return {what: found for what, found in problems.items() if found}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_gaps_question_in_the_report_and_a_review_at_320_px(
    page, transactional_db, nu_checker, lang
):
    """Seeded attempts at a quiz whose second question has gaps: the report's section of each
    gap (its choices, its most frequent wrong answers) and an attempt's review of its gaps."""
    quiz = make_quiz(slug="cloze", questions=3)
    make_gaps(quiz, 2)
    call_command("seedattempts", quiz.slug, "--count", "40", "--seed", "7", stdout=io.StringIO())
    user = User.objects.create_user("instructor", password="a long enough passphrase")
    user.user_permissions.add(Permission.objects.get(codename="view_report"))
    page.set_viewport_size({"width": 320, "height": 640})
    page.goto(f"/{lang}/accounts/login/")
    page.locator("#id_username").fill("instructor")
    page.locator("#id_password").fill("a long enough passphrase")
    with page.expect_navigation():
        page.locator("main button[type=submit]").click()
    report = page.goto(f"/{lang}/reports/quizzes/cloze/")
    section = page.locator("#question-2")
    expect(section.locator("h4.gap-heading")).to_have_count(3)
    expect(section.locator(".table-scroll[role=region]")).to_have_count(3)
    expect(section.locator("ol.wrong-responses")).to_have_count(2)  # The typed gaps'.
    expect(section.locator("h3 .gap-blank")).to_have_count(3)
    assert _checked_at_320_px(page, nu_checker, document_of(report), f"report-gaps-{lang}") == {}
    partly = Attempt.objects.filter(
        quiz=quiz, answers__question__position=2, answers__credit__gt=0, answers__credit__lt=1
    ).first()
    review = page.goto(f"/{lang}/reports/quizzes/cloze/attempts/{partly.public_id}/")
    expect(page.locator("#question-2 .review-gaps li.picked")).to_have_count(3)
    expect(page.locator("#question-2 .review-gaps li.wrong")).not_to_have_count(0)
    html = document_of(review)
    assert _checked_at_320_px(page, nu_checker, html, f"report-gaps-review-{lang}") == {}
