"""The demo's calculated question in a real browser: the attempt's values in the prompt, its
right result typed right, then in another attempt a known mistake with the feedback that
names the values, in both languages, with the script at 320 px and without it; valid HTML
at each step, and no axe-core violation with the script."""

import pytest
from playwright.sync_api import Page, expect

from quizzes.kinds.calculated import shown
from quizzes.models import Answer, Quiz
from tests.browser.helpers import axe_violations, sign_in_to_admin, t
from tests.factories import question_url, variant_of

SLUG = "gradient-accumulation-quiz"
NUMBER = 10  # The demo quiz's calculated question, its last.
NBSP = "\u00a0"
PROMPT = {
    "en": "With data parallelism over {workers} workers, each processing a local microbatch of",
    "fr": "En parallélisme de données sur {workers} nœuds, chacun traitant un micro-lot local de",
}
MISTAKE = {  # workers * local_batch: the accumulation steps left out.
    "en": "That counts the workers but not the {steps} accumulation steps",
    "fr": "Cela compte les nœuds mais pas les {steps} étapes d’accumulation",
}
SCRIPTED = {"viewport": {"width": 320, "height": 640}}
CONTEXTS = [SCRIPTED, {"java_script_enabled": False}]


def _checked(page: Page, nu_checker, html: str) -> None:
    assert nu_checker.errors(html) == []
    if page.viewport_size["width"] == 320:
        assert page.evaluate("document.documentElement.scrollWidth") <= 320, page.url
        assert axe_violations(page) == []


def _open(page: Page, browser_attempt, nu_checker, lang: str):
    attempt = browser_attempt(answered=NUMBER - 1, lang=lang, slug=SLUG)
    question = attempt.quiz.questions.get(position=NUMBER)
    variant = variant_of(attempt, question)
    response = page.goto(question_url(attempt, NUMBER, lang))
    prompt = PROMPT[lang].format(workers=shown(variant["workers"], lang))
    expect(page.locator(".prompt").first).to_contain_text(prompt)
    _checked(page, nu_checker, response.text())
    field = page.get_by_role("textbox", name=t(lang, "Your answer (a number)"))
    return attempt, variant, field


def _check(page: Page, lang: str, scripted: bool) -> str:
    button = page.get_by_role("button", name=t(lang, "Check answer"))
    if scripted:
        button.click()
        page.locator("#feedback").wait_for()
        return page.content()
    with page.expect_navigation():
        button.click()
    return page.content()


@pytest.mark.parametrize("context_options", CONTEXTS, ids=["script-320px", "no-script"])
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_calculated_question_typed_right_and_wrong(
    page, browser_attempt, nu_checker, lang, context_options
):
    scripted = context_options is SCRIPTED
    attempt, variant, field = _open(page, browser_attempt, nu_checker, lang)
    field.fill(shown(variant["answer"], lang))
    html = _check(page, lang, scripted)
    feedback = page.locator("#feedback")
    expect(feedback.locator("h2")).to_contain_text(t(lang, "Correct."))
    expect(feedback.locator("li.correct").last).to_contain_text(shown(variant["answer"], lang))
    expect(feedback).not_to_contain_text("±")  # Exactly: no "± 0".
    expect(feedback.locator(".variant")).to_contain_text(shown(variant["local_batch"], lang))
    _checked(page, nu_checker, html)
    recorded = Answer.objects.get(attempt=attempt, question__position=NUMBER)
    assert (recorded.response, recorded.is_correct) == (str(variant["answer"]), True)

    attempt, variant, field = _open(page, browser_attempt, nu_checker, lang)
    field.fill(shown(variant["workers"] * variant["local_batch"], lang))
    html = _check(page, lang, scripted)
    feedback = page.locator("#feedback")
    expect(feedback.locator("h2")).to_contain_text(t(lang, "Not quite."))
    expect(feedback).to_contain_text(MISTAKE[lang].format(steps=shown(variant["steps"], lang)))
    expect(feedback.locator("li.correct").last).to_contain_text(shown(variant["answer"], lang))
    expect(feedback).not_to_contain_text("±")  # Exactly: no "± 0".
    _checked(page, nu_checker, html)
    recorded = Answer.objects.get(attempt=attempt, question__position=NUMBER)
    assert recorded.is_correct is False


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_editor_s_page_previews_the_variants_valid_and_accessible(page, demo, nu_checker, lang):
    question = Quiz.objects.get(slug=SLUG).questions.get(position=NUMBER)
    sign_in_to_admin(page, lang)
    response = page.goto(f"/admin/quizzes/question/{question.pk}/change/")
    variants = page.locator("table.preview-variants")
    expect(variants.locator("caption")).to_contain_text(
        {"en": "5 variants of the values", "fr": "5 variantes des valeurs"}[lang]
    )
    expect(variants.locator("tbody tr")).to_have_count(5)
    first = variants.locator("tbody tr").first
    # workers = 2, local_batch = 16, steps = 2: the formulas' values in their order.
    expect(first.locator("td")).to_have_text(["64", "32", "32"])
    expect(page.locator('.preview-prompt[lang="en"]')).to_contain_text("over 2 workers")
    problems = {
        "Nu Html Checker": nu_checker.errors(response.text()),
        "axe": axe_violations(page),
    }
    assert {what: found for what, found in problems.items() if found} == {}
