"""A gaps (cloze) question in the admin, in a real browser: its gaps' kinds and choices' gaps
edited with its prompt in both languages, the preview's select and text boxes in each gap of
each language, then saved; valid HTML and no axe-core violation on the page and its
preview."""

import pytest
from playwright.sync_api import Page, expect

from quizzes.models import Question
from tests.browser.helpers import axe_violations, screenshot, sign_in_to_admin, t
from tests.factories import make_gaps, make_quiz

PROMPT_EN = "One step sees [[1]] samples; an [[2]] sums the gradients, run by [[3]]."
PROMPT_FR = "Un pas voit [[1]] exemples ; un [[2]] somme les gradients, que fait [[3]]."


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_an_editor_edits_and_previews_a_gaps_question(
    page: Page, transactional_db, nu_checker, lang
):
    question = make_gaps(make_quiz(slug="cloze", questions=1, published=False), 1)
    sign_in_to_admin(page, lang)
    url = f"/admin/quizzes/question/{question.pk}/change/"
    response = page.goto(url)
    expect(page.locator("#id_gaps")).to_have_value("numerical, single, short_answer")
    expect(page.locator("#id_choices-3-gap")).to_have_value("2")
    problems = {"Nu Html Checker": nu_checker.errors(response.text()), "axe": axe_violations(page)}
    assert {what: found for what, found in problems.items() if found} == {}

    page.locator("#id_prompt_en").fill(PROMPT_EN)
    page.locator("#id_prompt_fr").fill(PROMPT_FR)
    page.locator("#id_gaps").fill("numerical, single, short answer")
    page.locator("#id_choices-3-text_fr").fill("diffusion (broadcast)")
    page.locator("#id_choices-4-gap").fill("1")  # all-gather, a wrong value: refused.
    with page.expect_navigation():
        page.get_by_role("button", name=t(lang, "Preview")).click()
    expect(page.locator(".errornote")).to_be_visible()
    expect(page.locator("#choices-group .errorlist")).to_contain_text(
        t(lang, "gap %(number)s: %(problem)s", number=1, problem="").rstrip()
    )
    page.locator("#id_choices-4-gap").fill("2")
    with page.expect_navigation() as navigation:
        page.get_by_role("button", name=t(lang, "Preview")).click()
    expect(page.locator("#preview-title")).to_have_text(
        t(lang, "Preview of what you typed (not saved yet)")
    )
    for code, prompt in (("en", "One step sees"), ("fr", "Un pas voit")):
        shown = page.locator(f'.preview-prompt[lang="{code}"]')
        expect(shown).to_contain_text(prompt)
        expect(shown.locator("select")).to_have_count(1)
        expect(shown.locator("input[type=text]")).to_have_count(2)
        expect(shown).not_to_contain_text("[[")
    gap = page.get_by_label(t(lang, "Gap %(number)s", number=2), exact=True)
    expect(gap).to_have_count(2)
    expect(gap.last.locator("option")).to_have_text(
        [t(lang, "Choose…"), "all-reduce", "diffusion (broadcast)", "all-gather"]
    )
    expect(gap.last).to_be_disabled()
    problems = {
        "Nu Html Checker": nu_checker.errors(navigation.value.text()),
        "axe": axe_violations(page),
    }
    assert {what: found for what, found in problems.items() if found} == {}
    page.locator("#preview").scroll_into_view_if_needed()
    screenshot(page, f"admin-gaps-preview-{lang}")
    assert Question.objects.get(pk=question.pk).prompt_fr != PROMPT_FR  # Not saved yet.

    with page.expect_navigation():
        page.locator("input[name=_continue]").click()
    expect(page.locator(".messagelist .success")).to_be_visible()
    question.refresh_from_db()
    assert (question.prompt_en, question.prompt_fr) == (PROMPT_EN, PROMPT_FR)
    assert question.gaps == ["numerical", "single", "short_answer"]
    assert question.choices.get(text_en="broadcast").text_fr == "diffusion (broadcast)"
    assert question.choice_problems() == []
