"""A matching question in a real browser (a quiz of its own, matching_quiz.yaml): matched
rightly and wrongly, in both languages, with the script at 320 px (its boxes reached and set
from the keyboard) and without it (a left item left unmatched refused, the picks kept);
valid HTML at each step, and no axe-core violation with the script. And the admin's change
page of the question, its preview a disabled box per left item with its right item picked."""

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from quizzes.interchange.importing import quiz_import
from quizzes.interchange.quizfile import quiz_file_read
from quizzes.models import Answer, Choice
from tests.browser.helpers import (
    CONTEXTS,
    axe_violations,
    check_answer,
    checked,
    scripted,
    sign_in_to_admin,
    t,
)
from tests.factories import question_url

QUIZ = Path(__file__).with_name("matching_quiz.yaml")


def _open(page: Page, browser_attempt, nu_checker, lang: str):
    quiz = quiz_import(data=quiz_file_read(content=QUIZ.read_bytes()))
    attempt = browser_attempt(lang=lang, slug=quiz.slug)
    response = page.goto(question_url(attempt, 1, lang))
    expect(page.locator("ul.matching select")).to_have_count(3)
    checked(page, nu_checker, response.text())
    choices = list(Choice.objects.filter(question__quiz=quiz).order_by("position"))
    return attempt, choices


def _pick(page: Page, left: Choice, right: Choice) -> None:
    """Sets the box of `left` to `right`'s right item: from the keyboard where the page runs
    its script (the box focused, then its arrow keys), else as a click would."""
    box = page.locator(f"#match-{left.pk}")
    value = f"{left.pk}:{right.pk}"
    if scripted(page):
        box.focus()
        box.press("Home")
        for _ in range(box.locator("option").count()):
            if box.input_value() == value:
                break
            box.press("ArrowDown")
        expect(box).to_be_focused()
    else:
        box.select_option(value)
    expect(box).to_have_value(value)


@CONTEXTS
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_matching_question_matched_rightly(page, browser_attempt, nu_checker, lang):
    attempt, (a, b, c, _distractor) = _open(page, browser_attempt, nu_checker, lang)
    label = page.get_by_label(a.text_fr if lang == "fr" else a.text_en, exact=True)
    expect(label).to_have_attribute("id", f"match-{a.pk}")
    for left in (a, b, c):
        _pick(page, left, left)
    html = check_answer(page, lang)
    feedback = page.locator("#feedback")
    expect(feedback.locator("h2")).to_contain_text(t(lang, "Correct."))
    expect(feedback.locator(".review-matching .tag-correct")).to_have_count(3)
    checked(page, nu_checker, html)
    recorded = Answer.objects.get(attempt=attempt)
    assert recorded.is_correct and recorded.response == ",".join(
        f"{x.pk}:{x.pk}" for x in (a, b, c)
    )


@CONTEXTS
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_matching_question_left_unmatched_then_matched_wrongly(
    page, browser_attempt, nu_checker, lang
):
    attempt, (a, b, c, distractor) = _open(page, browser_attempt, nu_checker, lang)
    _pick(page, a, b)
    _pick(page, c, c)
    html = check_answer(page, lang)  # B left on "Choose…": refused, nothing recorded.
    expect(page.locator("#choice-error")).to_have_text(t(lang, "Match every item."))
    expect(page.locator(f"#match-{a.pk}")).to_have_value(f"{a.pk}:{b.pk}")
    expect(page.locator(f"#match-{b.pk}")).to_have_attribute("aria-invalid", "true")
    checked(page, nu_checker, html)
    assert not Answer.objects.filter(attempt=attempt).exists()
    _pick(page, b, distractor)
    html = check_answer(page, lang)
    feedback = page.locator("#feedback")
    share = t(lang, "Partly right: %(credit)s of the mark.")
    expect(feedback.locator("h2")).to_contain_text(share.split("%(credit)s")[0].strip())
    expect(feedback.locator(".review-matching .tag-wrong")).to_have_count(2)
    right_b = b.match_fr if lang == "fr" else b.match_en
    expect(feedback.locator(".review-matching")).to_contain_text(right_b)
    checked(page, nu_checker, html)
    recorded = Answer.objects.get(attempt=attempt)
    assert (recorded.is_correct, str(recorded.credit)) == (False, "0.33333")


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_admin_previews_the_boxes_with_each_right_item_picked(page, demo, nu_checker, lang):
    quiz = quiz_import(data=quiz_file_read(content=QUIZ.read_bytes()))
    question = quiz.questions.get()
    a, b, _c, distractor = question.choices.order_by("position")
    sign_in_to_admin(page, lang)
    response = page.goto(f"/admin/quizzes/question/{question.pk}/change/")
    expect(page.locator(f"#id_choices-3-match_{lang}")).to_have_value(
        distractor.match_fr if lang == "fr" else distractor.match_en
    )
    boxes = page.locator(".preview-language select")
    expect(boxes).to_have_count(6)  # Three left items in each language: not the distractor.
    box = page.get_by_label("Diffusion (broadcast)", exact=True)
    expect(box).to_be_disabled()
    expect(box.locator("option:checked")).to_have_text(b.match_fr)
    expect(page.get_by_label(a.text_en, exact=True).first.locator("option")).to_have_count(5)
    problems = {"Nu Html Checker": nu_checker.errors(response.text()), "axe": axe_violations(page)}
    assert {what: found for what, found in problems.items() if found} == {}
