"""Every page kind, in every language: valid HTML, no axe-core violation, usable at 320 px.

PAGES is the list these checks walk. To check another page, add a function that opens it
in the browser and returns the navigation's response (the HTML the server sent), then list
it in PAGES. A page for a signed-in user can make the user in code and sign in through the
form first, as signed_in_with_message signs up.
"""

import pytest
from django.contrib.auth.models import User
from django.contrib.auth.tokens import default_token_generator
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from playwright.sync_api import Page, Response, expect

from guides.models import GuidePath
from quizzes.models import Answer, Attempt, Choice, Question
from tests.browser.helpers import (
    LANGUAGES,
    admin_import_preview,
    axe_violations,
    document_of,
    fill_gaps,
    gap_values,
    screenshot,
    settle,
    sign_in_as_instructor,
    t,
)
from tests.factories import make_multiple, make_quiz, question_url, results_url

TOTAL = 13  # The demo quiz's questions: a short answer tenth, a calculated one, a gaps one last.
CALCULATED = 12


def home(page: Page, browser_attempt, lang: str) -> Response:
    return page.goto(f"/{lang}/")


def guide(page: Page, browser_attempt, lang: str) -> Response:
    return page.goto(f"/{lang}/guides/data-parallelism/")


def quiz_landing(page: Page, browser_attempt, lang: str) -> Response:
    return page.goto(f"/{lang}/quizzes/data-parallelism-quiz/")


def quiz_landing_resume(page: Page, browser_attempt, lang: str) -> Response:
    browser_attempt(answered=2, lang=lang)
    return page.goto(f"/{lang}/quizzes/data-parallelism-quiz/")


def question_unanswered(page: Page, browser_attempt, lang: str) -> Response:
    return page.goto(question_url(browser_attempt(lang=lang), 1, lang))


def question_answered_right(page: Page, browser_attempt, lang: str) -> Response:
    return page.goto(question_url(browser_attempt(answered=1, lang=lang), 1, lang))


def question_answered_wrong(page: Page, browser_attempt, lang: str) -> Response:
    return page.goto(question_url(browser_attempt(answered=2, lang=lang), 2, lang))


def question_feedback_by_script(page: Page, browser_attempt, lang: str) -> Response:
    """The feedback the page's script shows in place, and checked as the page is then."""
    response = page.goto(question_url(browser_attempt(lang=lang), 1, lang))
    page.locator(".choice label").first.click()
    page.get_by_role("button", name=t(lang, "Check answer")).click()
    page.locator("#feedback").wait_for()
    return response


def question_next_by_script(page: Page, browser_attempt, lang: str) -> Response:
    """The next question the page's script shows in place after the feedback."""
    response = question_feedback_by_script(page, browser_attempt, lang)
    page.get_by_role("link", name=t(lang, "Next question")).click()
    expect(page.get_by_role("heading", level=1)).to_be_focused()
    return response


def question_started_by_script(page: Page, browser_attempt, lang: str) -> Response:
    """The first question the page's script shows in place of the quiz page after Start."""
    response = page.goto(f"/{lang}/quizzes/data-parallelism-quiz/")
    page.get_by_role("button", name=t(lang, "Start the quiz")).click()
    expect(page.get_by_role("heading", level=1)).to_be_focused()
    return response


def results_by_script(page: Page, browser_attempt, lang: str) -> Response:
    """The results the page's script shows in place after the last answer's feedback."""
    attempt = browser_attempt(answered=TOTAL - 1, lang=lang)
    response = page.goto(question_url(attempt, TOTAL, lang))
    last = attempt.quiz.questions.get(position=TOTAL)  # A gaps question: each gap right.
    fill_gaps(page, gap_values(last, right=True, lang=lang))
    page.get_by_role("button", name=t(lang, "Check answer")).click()
    page.get_by_role("link", name=t(lang, "See your results")).click()
    expect(page.locator("#score")).to_be_visible()
    return response


def question_form_error(page: Page, browser_attempt, lang: str) -> Response:
    page.goto(question_url(browser_attempt(lang=lang), 1, lang))
    with page.expect_navigation() as navigation:
        page.get_by_role("button", name=t(lang, "Check answer")).click()
    return navigation.value


def question_with_code_and_maths(page: Page, browser_attempt, lang: str) -> Response:
    """The accumulation loop in Python, `(i + 1) % k == 0` and $k$, after the answer."""
    attempt = browser_attempt(answered=3, lang=lang, slug="gradient-accumulation-quiz")
    response = page.goto(question_url(attempt, 3, lang))
    assert page.locator("pre.code-block .k").count() and page.locator("math").count()
    return response


def question_with_code_in_its_prompt(page: Page, browser_attempt, lang: str) -> Response:
    """ "What does it print?": the prompt's loop keeps its lines, in the prompt that labels
    the question's fieldset."""
    attempt = browser_attempt(answered=6, lang=lang, slug="gradient-accumulation-quiz")
    response = page.goto(question_url(attempt, 7, lang))
    code = page.locator("fieldset[aria-labelledby=prompt] #prompt pre.code-block")
    assert code.inner_text().count("\n") >= 4
    return response


def question_with_english_fallback(page: Page, browser_attempt, lang: str) -> Response:
    """French texts missing: the French page shows English, marked and tagged "en anglais"."""
    question = Question.objects.get(quiz__slug="data-parallelism-quiz", position=1)
    question.prompt_fr = ""
    question.save()
    question.choices.filter(position=2).update(text_fr="")
    response = page.goto(question_url(browser_attempt(lang=lang), 1, lang))
    assert page.locator(".fallback-tag").count() == (2 if lang == "fr" else 0)
    return response


def results(page: Page, browser_attempt, lang: str) -> Response:
    return page.goto(results_url(browser_attempt(answered=TOTAL, lang=lang), lang))


def not_found(page: Page, browser_attempt, lang: str) -> Response:
    return page.goto(f"/{lang}/quizzes/no-such-quiz/")


def sign_in(page: Page, browser_attempt, lang: str) -> Response:
    return page.goto(f"/{lang}/accounts/login/")


def sign_in_error(page: Page, browser_attempt, lang: str) -> Response:
    page.goto(f"/{lang}/accounts/login/")
    page.locator("#id_username").fill("nobody")
    page.locator("#id_password").fill("wrong password")
    with page.expect_navigation() as navigation:
        page.locator("main button[type=submit]").click()
    return navigation.value


def sign_up(page: Page, browser_attempt, lang: str) -> Response:
    return page.goto(f"/{lang}/accounts/signup/")


def sign_up_error(page: Page, browser_attempt, lang: str) -> Response:
    page.goto(f"/{lang}/accounts/signup/")
    page.locator("#id_username").fill("learner")
    page.locator("#id_password1").fill("short")
    page.locator("#id_password2").fill("different")
    with page.expect_navigation() as navigation:
        page.locator("main button[type=submit]").click()
    return navigation.value


def signed_in_with_message(page: Page, browser_attempt, lang: str) -> Response:
    browser_attempt(answered=1, lang=lang)
    page.goto(f"/{lang}/accounts/signup/")
    page.locator("#id_username").fill("learner")
    page.locator("#id_password1").fill("a long enough passphrase")
    page.locator("#id_password2").fill("a long enough passphrase")
    with page.expect_navigation() as navigation:
        page.locator("main button[type=submit]").click()
    return navigation.value


def reports(page: Page, browser_attempt, lang: str) -> Response:
    sign_in_as_instructor(page, lang)
    return page.goto(f"/{lang}/reports/")


def quiz_report(page: Page, browser_attempt, lang: str) -> Response:
    """With a completed attempt whose short answer is a known mistake: the report lists it
    among the most frequent wrong answers, and its calculated question's answer by variant."""
    attempt = browser_attempt(answered=TOTAL, lang=lang)
    mistake = Choice.objects.get(question__quiz=attempt.quiz, question__position=10, position=5)
    Answer.objects.filter(attempt=attempt, question__position=10).update(
        response="nn.DataParallel", is_correct=False, choice=mistake
    )
    sign_in_as_instructor(page, lang)
    response = page.goto(f"/{lang}/reports/quizzes/data-parallelism-quiz/")
    expect(page.locator("#question-10 .wrong-responses")).to_contain_text("nn.DataParallel")
    # The calculated question's answers by variant, the seeded attempts' too: ten of them.
    expect(page.locator(f"#question-{CALCULATED} table.variants tbody tr")).to_have_count(10)
    return response


def quiz_report_filtered(page: Page, browser_attempt, lang: str) -> Response:
    sign_in_as_instructor(page, lang)
    return page.goto(
        f"/{lang}/reports/quizzes/data-parallelism-quiz/?attempts=all&language=fr&sort=-best"
    )


def progress(page: Page, browser_attempt, lang: str) -> Response:
    browser_attempt(answered=TOTAL, lang=lang)
    return page.goto(f"/{lang}/progress/")


def progress_signed_in(page: Page, browser_attempt, lang: str) -> Response:
    signed_in_with_message(page, browser_attempt, lang)
    return page.goto(f"/{lang}/progress/")


def results_mistakes_only(page: Page, browser_attempt, lang: str) -> Response:
    return page.goto(results_url(browser_attempt(answered=TOTAL, lang=lang), lang) + "?mistakes=1")


def _practise(page: Page, browser_attempt, lang: str) -> None:
    page.goto(results_url(browser_attempt(answered=TOTAL, lang=lang), lang))
    with page.expect_navigation():
        page.locator("form[action$='/practice/'] button").click()


def practice_question(page: Page, browser_attempt, lang: str) -> Response:
    _practise(page, browser_attempt, lang)
    return page.reload()


def practice_results(page: Page, browser_attempt, lang: str) -> Response:
    _practise(page, browser_attempt, lang)
    for _ in range(TOTAL // 2):  # The even questions: a short answer, a calculated one last.
        if page.locator("#text-answer").count():
            page.locator("#text-answer").fill("DDP")
        elif page.locator("#number-answer").count():
            page.locator("#number-answer").fill("1")
        else:
            page.locator(".choice input").first.check()
        with page.expect_navigation():
            page.get_by_role("button", name=t(lang, "Check answer")).click()
        with page.expect_navigation():
            page.locator(".verdict-bar .button").click()
    expect(page.locator("#score")).to_be_visible()  # Shown in place by the page's script,
    return page.reload()  # and here as the server sends it.


def nothing_to_practise(page: Page, browser_attempt, lang: str) -> Response:
    attempt = browser_attempt(answered=TOTAL, lang=lang)
    Answer.objects.filter(attempt=attempt).update(is_correct=True)
    page.goto(results_url(attempt, lang) + "?mistakes=1")
    with page.expect_navigation() as navigation:
        page.evaluate(
            """() => { const form = document.createElement("form"); form.method = "post";
            form.action = location.pathname.replace("results", "practice");
            const token = document.querySelector("[name=csrfmiddlewaretoken]").cloneNode();
            form.append(token); document.body.append(form); form.submit(); }"""
        )
    return navigation.value


def _multiple_choice_quiz(page: Page, lang: str) -> None:
    quiz = make_quiz(slug="multiple", questions=2, guide=GuidePath.objects.first())
    make_multiple(quiz, 1)
    page.goto(f"/{lang}/quizzes/multiple/")
    with page.expect_navigation():
        page.get_by_role("button", name=t(lang, "Start the quiz")).click()


def ordering_question(page: Page, browser_attempt, lang: str) -> Response:
    """The demo's ordering question, its items to move (with the script) or to number."""
    return page.goto(question_url(browser_attempt(answered=8, lang=lang), 9, lang))


def ordering_feedback(page: Page, browser_attempt, lang: str) -> Response:
    """The feedback of an order: the learner's beside the right one."""
    return page.goto(question_url(browser_attempt(answered=9, lang=lang), 9, lang))


def gaps_question(page: Page, browser_attempt, lang: str) -> Response:
    """The demo's gaps question: a box, a list and a box in the lines of its prompt."""
    return page.goto(question_url(browser_attempt(answered=TOTAL - 1, lang=lang), TOTAL, lang))


def gaps_refused(page: Page, browser_attempt, lang: str) -> Response:
    """A number that can't be read in its first gap: refused, the gap marked, all kept."""
    gaps_question(page, browser_attempt, lang)
    fill_gaps(page, ["two hundred", *gap_values(_last(), right=True, lang=lang)[1:]])
    with page.expect_navigation() as navigation:
        page.get_by_role("button", name=t(lang, "Check answer")).click()
    return navigation.value


def gaps_feedback_by_script(page: Page, browser_attempt, lang: str) -> Response:
    """Each gap's known mistake: the prompt's numbered blanks, each gap's right answer and
    the mistake's feedback."""
    response = gaps_question(page, browser_attempt, lang)
    fill_gaps(page, gap_values(_last(), right=False, lang=lang))
    page.get_by_role("button", name=t(lang, "Check answer")).click()
    expect(page.locator("#feedback .review-gaps .gap-right")).to_have_count(3)
    return response


def _last():
    return Question.objects.get(quiz__slug="data-parallelism-quiz", position=TOTAL)


def multiple_choice_question(page: Page, browser_attempt, lang: str) -> Response:
    _multiple_choice_quiz(page, lang)
    return page.reload()


def multiple_choice_feedback(page: Page, browser_attempt, lang: str) -> Response:
    _multiple_choice_quiz(page, lang)
    page.locator(".choice input").nth(1).check()
    page.locator(".choice input").nth(2).check()
    page.get_by_role("button", name=t(lang, "Check answer")).click()
    page.locator("#feedback").wait_for()
    return page.reload()


def password_reset(page: Page, browser_attempt, lang: str) -> Response:
    return page.goto(f"/{lang}/accounts/password_reset/")


def password_reset_done(page: Page, browser_attempt, lang: str) -> Response:
    page.goto(f"/{lang}/accounts/password_reset/")
    page.locator("#id_email").fill("nobody@example.org")
    with page.expect_navigation() as navigation:
        page.locator("main button[type=submit]").click()
    return navigation.value


def password_reset_confirm(page: Page, browser_attempt, lang: str) -> Response:
    user = User.objects.create_user("reset", email="reset@example.org")
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    return page.goto(f"/{lang}/accounts/reset/{uid}/{token}/")


def password_reset_link_used(page: Page, browser_attempt, lang: str) -> Response:
    return page.goto(f"/{lang}/accounts/reset/MQ/no-such-token/")


def password_reset_complete(page: Page, browser_attempt, lang: str) -> Response:
    return page.goto(f"/{lang}/accounts/reset/done/")


def report_attempts(page: Page, browser_attempt, lang: str) -> Response:
    sign_in_as_instructor(page, lang)
    return page.goto(f"/{lang}/reports/quizzes/data-parallelism-quiz/attempts/?attempts=all")


def report_attempt(page: Page, browser_attempt, lang: str) -> Response:
    """An instructor's review of a finished French attempt (the page may be in English)."""
    sign_in_as_instructor(page, lang)
    attempt = Attempt.objects.filter(completed_at__isnull=False, language="fr").first()
    return page.goto(f"/{lang}/reports/quizzes/{attempt.quiz.slug}/attempts/{attempt.public_id}/")


def start_over(page: Page, browser_attempt, lang: str) -> Response:
    attempt = browser_attempt(answered=2, lang=lang)
    return page.goto(f"/{lang}/quizzes/{attempt.quiz.slug}/start-over/")


def account_delete(page: Page, browser_attempt, lang: str) -> Response:
    signed_in_with_message(page, browser_attempt, lang)
    return page.goto(f"/{lang}/accounts/delete/")


PAGES = [
    pytest.param(home, id="home"),
    pytest.param(guide, id="guide"),
    pytest.param(quiz_landing, id="quiz-landing"),
    pytest.param(quiz_landing_resume, id="quiz-landing-resume"),
    pytest.param(question_unanswered, id="question-unanswered"),
    pytest.param(question_answered_right, id="question-answered-right"),
    pytest.param(question_answered_wrong, id="question-answered-wrong"),
    pytest.param(question_form_error, id="question-form-error"),
    pytest.param(question_feedback_by_script, id="question-feedback-by-script"),
    pytest.param(question_next_by_script, id="question-next-by-script"),
    pytest.param(question_started_by_script, id="question-started-by-script"),
    pytest.param(results_by_script, id="results-by-script"),
    pytest.param(question_with_code_and_maths, id="question-with-code-and-maths"),
    pytest.param(question_with_code_in_its_prompt, id="question-with-code-in-its-prompt"),
    pytest.param(question_with_english_fallback, id="question-with-english-fallback"),
    pytest.param(results, id="results"),
    pytest.param(not_found, id="404"),
    pytest.param(sign_in, id="sign-in"),
    pytest.param(sign_in_error, id="sign-in-error"),
    pytest.param(sign_up, id="sign-up"),
    pytest.param(sign_up_error, id="sign-up-error"),
    pytest.param(signed_in_with_message, id="signed-in-with-message"),
    pytest.param(reports, id="reports"),
    pytest.param(quiz_report, id="quiz-report"),
    pytest.param(quiz_report_filtered, id="quiz-report-filtered"),
    pytest.param(report_attempts, id="report-attempts"),
    pytest.param(report_attempt, id="report-attempt"),
    pytest.param(start_over, id="start-over"),
    pytest.param(admin_import_preview, id="admin-import-preview"),
    pytest.param(progress, id="progress"),
    pytest.param(progress_signed_in, id="progress-signed-in"),
    pytest.param(results_mistakes_only, id="results-mistakes-only"),
    pytest.param(practice_question, id="practice-question"),
    pytest.param(practice_results, id="practice-results"),
    pytest.param(nothing_to_practise, id="nothing-to-practise"),
    pytest.param(ordering_question, id="ordering-question"),
    pytest.param(ordering_feedback, id="ordering-feedback"),
    pytest.param(gaps_question, id="gaps-question"),
    pytest.param(gaps_refused, id="gaps-refused"),
    pytest.param(gaps_feedback_by_script, id="gaps-feedback-by-script"),
    pytest.param(multiple_choice_question, id="multiple-choice-question"),
    pytest.param(multiple_choice_feedback, id="multiple-choice-feedback"),
    pytest.param(password_reset, id="password-reset"),
    pytest.param(password_reset_done, id="password-reset-done"),
    pytest.param(password_reset_confirm, id="password-reset-confirm"),
    pytest.param(password_reset_link_used, id="password-reset-link-used"),
    pytest.param(password_reset_complete, id="password-reset-complete"),
    pytest.param(account_delete, id="account-delete"),
]
STATUS = {"question_form_error": 400, "gaps_refused": 400, "not_found": 404}
# Pages the script changed after their load: checked as the browser has them then.
SCRIPTED = {
    "gaps_feedback_by_script",
    "question_feedback_by_script",
    "question_next_by_script",
    "question_started_by_script",
    "results_by_script",
}


@pytest.fixture(autouse=True)
def kept_uploads(settings):
    """Where the admin keeps an import file until it is confirmed (tests/conftest.py moves
    the private storage into the test's own directory)."""
    return settings.STORAGES["private"]["OPTIONS"]["location"]


def _open(open_page, page, browser_attempt, lang) -> str:
    """Opens the page; returns its HTML as the server sent it (as the script left it, for the
    pages the script changes)."""
    response = open_page(page, browser_attempt, lang)
    assert response.status == STATUS.get(open_page.__name__, 200), page.url
    assert page.locator("html").get_attribute("lang") == lang
    return page.content() if open_page.__name__ in SCRIPTED else document_of(response)


# Every link, button and form field must be on screen at 320 px and the topmost thing where
# a finger would tap it (its label counts, for radio buttons). The skip link hides off screen
# until it has the focus; the keyboard tests use it. The admin's own skip link does the same,
# and Django's admin hides its navigation sidebar and the sidebar's toggle below 768 px.
BLOCKED_CONTROLS = """() => {
    const blocked = [];
    const exempt = ".skip-link, .skip-to-content-link, #nav-sidebar, #toggle-nav-sidebar";
    for (const control of document.querySelectorAll("a[href], button, input, select, textarea")) {
        if (control.type === "hidden" || control.closest(exempt)) continue;
        control.scrollIntoView({block: "center"});
        const box = control.getClientRects()[0];
        const hit = box
            && document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        const onTop = hit && (control.contains(hit)
            || [...(control.labels || [])].some((label) => label.contains(hit)));
        if (!(box && box.width > 0 && box.left >= 0 && box.right <= 320 && onTop)) {
            blocked.push(control.outerHTML.slice(0, 100));
        }
    }
    return blocked;
}"""


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("open_page", PAGES)
def test_page_is_valid_and_accessible_in_light_and_dark_and_fits_320_px(
    page, browser_attempt, nu_checker, open_page, lang
):
    name = f"{open_page.__name__}-{lang}"
    refused = []
    page.on("console", lambda m: "Content Security Policy" in m.text and refused.append(m.text))
    html = _open(open_page, page, browser_attempt, lang)
    problems = {"Nu Html Checker": nu_checker.errors(html)}
    screenshot(page, name)
    problems["axe, light"] = axe_violations(page)
    page.emulate_media(color_scheme="dark")
    settle(page)
    screenshot(page, f"{name}-dark", full_page=False)
    problems["axe, dark"] = axe_violations(page)
    page.emulate_media(color_scheme="light")
    page.set_viewport_size({"width": 320, "height": 640})
    settle(page)
    screenshot(page, f"{name}-320px")
    problems["axe, 320 px"] = axe_violations(page)
    problems["wider than 320 px"] = page.evaluate("document.documentElement.scrollWidth > 320")
    problems["controls out of reach at 320 px"] = page.evaluate(BLOCKED_CONTROLS)
    problems["refused by the Content-Security-Policy"] = refused
    assert {what: found for what, found in problems.items() if found} == {}


RICH_CONTENT_SIZES = """() => {
    const code = document.querySelector(".explanation pre.code-block");
    const image = document.querySelector(".explanation img");
    return {
        page: document.documentElement.scrollWidth,
        codeScrolls: code.scrollWidth > code.clientWidth,
        codeRight: code.getBoundingClientRect().right,
        imageLoaded: image.complete && image.naturalWidth > 0,
        imageRight: image.getBoundingClientRect().right,
        formulas: document.querySelectorAll(".explanation math").length,
    };
}"""


@pytest.mark.parametrize(
    "context_options",
    [
        {"viewport": {"width": 320, "height": 640}},
        {"viewport": {"width": 320, "height": 640}, "java_script_enabled": False},
    ],
    ids=["script", "no-script"],
)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_code_maths_and_image_are_read_at_320_px(page, browser_attempt, lang, request):
    """The all-reduce question's explanation: its code scrolls sideways inside its box, the
    page itself doesn't; the diagram loads (from /media/) and fits; the formulas are MathML."""
    page.goto(question_url(browser_attempt(answered=2, lang=lang), 2, lang))
    sizes = page.evaluate(RICH_CONTENT_SIZES)
    assert sizes["page"] <= 320, sizes
    assert sizes["codeScrolls"] and sizes["codeRight"] <= 320, sizes
    assert sizes["imageLoaded"] and sizes["imageRight"] <= 320, sizes
    assert sizes["formulas"] == 2, sizes
    code = page.locator(".explanation pre.code-block")
    code.focus()  # Focusable, so a keyboard can scroll it.
    page.keyboard.press("ArrowRight")
    assert code.evaluate("element => element === document.activeElement")
    code.scroll_into_view_if_needed()
    screenshot(page, f"rich-content-{request.node.callspec.id}", full_page=False)
