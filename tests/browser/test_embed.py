"""A guide's page on another site frames a quiz, or one question: the learner takes it in the
frame, in English and French, with the script and without it; the answers are recorded as
on the site, with the site they were embedded in; the frame's height follows its content;
a page of a site not on the list gets the frame refused by the browser.

The site is the live server on http://localhost:<port>; the guide's pages come from a small
server of their own on http://127.0.0.1:<another port>: another host name, so another site,
and the frame is a third-party one (its cookies partitioned, SameSite=None; Secure, which
browsers keep from a loopback host over plain http as over https)."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Page, expect

from quizzes.models import Answer, Attempt, AttemptKind, EmbedOrigin
from tests.browser.helpers import LANGUAGES, axe_violations, settle, t
from tests.factories import make_quiz

NO_SCRIPT = {"java_script_enabled": False}


class GuideSite:
    """A static guide page on 127.0.0.1, another port: `/?src=<embed address>` frames it with
    the plain <iframe> snippet, `&script=1` with embed.js's placeholder instead."""

    def __init__(self, quizsite: str) -> None:
        quizsite_url = quizsite

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                query = parse_qs(urlsplit(self.path).query)
                src = query.get("src", [""])[0]
                if query.get("script"):
                    frame = (
                        f'<a class="quizsite-embed" href="{src}">Take the quiz</a>'
                        f'<script src="{quizsite_url}/embed.js" async></script>'
                    )
                else:
                    frame = (
                        f'<iframe src="{src}" title="Quiz" width="100%" height="600" '
                        'loading="lazy"></iframe>'
                    )
                body = (
                    "<!doctype html><html lang=en><head><meta charset=utf-8>"
                    "<title>Guide</title></head><body><h1>Chapter 2</h1>"
                    f"<p>Some text of the guide.</p>{frame}<p>After the quiz.</p></body></html>"
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "GuideSite":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def page(self, src: str, *, script: bool = False) -> str:
        return f"{self.url}/?src={src}" + ("&script=1" if script else "")


@pytest.fixture
def guide_site(live_server, transactional_db):
    assert live_server.url.startswith("http://localhost:")
    with GuideSite(live_server.url) as site:
        EmbedOrigin.objects.create(origin=site.url, note="The test's guide")
        yield site


@pytest.fixture
def quiz(transactional_db):
    return make_quiz(questions=2)


def embed_address(live_server, lang: str, slug: str, number: int | None = None) -> str:
    tail = f"questions/{number}/" if number else ""
    return f"{live_server.url}/{lang}/embed/quizzes/{slug}/{tail}"


def take(frame, lang: str, numbers) -> None:
    """Answers questions `numbers` of the quiz (choice 1, the right one) in the frame."""
    last = numbers[-1]
    for step, n in enumerate(numbers, 1):
        prompt = "Question {} prompt" if lang == "en" else "Énoncé de la question {}"
        expect(frame.get_by_text(prompt.format(n))).to_be_visible()
        choice = f"Q{n} choice 1" if lang == "en" else f"Q{n} choix 1"
        frame.get_by_label(choice).check()
        frame.get_by_role("button", name=t(lang, "Check answer")).click()
        explanation = f"Explanation {n} in English." if lang == "en" else f"Explication {n}"
        expect(frame.get_by_text(explanation)).to_be_visible()
        guide_link = frame.get_by_role("link", name=t(lang, "Read more in the guide"))
        expect(guide_link).to_have_attribute("target", "_blank")
        expect(guide_link).to_have_attribute("rel", "noopener")
        next_name = t(lang, "See your results") if n == last else t(lang, "Next question")
        frame.get_by_role("link", name=next_name).click()
        del step
    expect(frame.get_by_role("heading", name=t(lang, "Your results"))).to_be_visible()


@pytest.mark.parametrize("context_options", [{}, NO_SCRIPT], ids=["script", "no-script"])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_whole_quiz_is_taken_in_the_guides_frame(
    page: Page, live_server, guide_site, quiz, lang, context_options
):
    script = not context_options
    page.goto(guide_site.page(embed_address(live_server, lang, quiz.slug), script=script))
    frame = page.frame_locator("iframe")
    expect(frame.get_by_role("heading", name=quiz.title if lang == "en" else quiz.title_fr))
    frame.get_by_role("button", name=t(lang, "Start the quiz")).click()
    take(frame, lang, [1, 2])
    attempt = Attempt.objects.get()
    assert attempt.embedded_in.origin == guide_site.url
    assert attempt.kind == AttemptKind.QUIZ and attempt.language == lang
    assert attempt.is_finished and attempt.score == 2 and attempt.max_score == 2
    assert Answer.objects.filter(attempt=attempt, is_correct=True).count() == 2
    assert page.url.startswith(guide_site.url)  # The guide's page never left.


@pytest.mark.parametrize("context_options", [{}, NO_SCRIPT], ids=["script", "no-script"])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_one_question_is_taken_in_the_guides_frame(
    page: Page, live_server, guide_site, quiz, lang, context_options
):
    script = not context_options
    address = embed_address(live_server, lang, quiz.slug, number=2)
    page.goto(guide_site.page(address, script=script))
    frame = page.frame_locator("iframe")
    frame.get_by_role("button", name=t(lang, "Answer this question")).click()
    take(frame, lang, [2])
    attempt = Attempt.objects.get()
    assert attempt.kind == AttemptKind.QUESTION and attempt.embedded_in.origin == guide_site.url
    assert attempt.question_ids == [quiz.questions.get(position=2).pk]
    assert attempt.answers.get().question.position == 2 and attempt.is_finished


def frame_height(page: Page) -> int:
    return int(page.locator("iframe").get_attribute("height"))


def content_height(page: Page) -> int:
    frame = page.frames[1]
    return frame.evaluate("Math.ceil(document.body.getBoundingClientRect().height)")


def test_the_frames_height_follows_its_content_and_forged_heights_do_nothing(
    page: Page, live_server, guide_site, quiz
):
    page.set_viewport_size({"width": 375, "height": 700})
    page.goto(guide_site.page(embed_address(live_server, "en", quiz.slug), script=True))
    frame = page.frame_locator("iframe")
    frame.get_by_role("button", name="Start the quiz").click()
    expect(frame.get_by_text("Question 1 prompt")).to_be_visible()
    page.wait_for_function("document.querySelector('iframe').height !== '600'")
    settle(page)
    assert abs(frame_height(page) - content_height(page)) <= 40
    before = frame_height(page)
    frame.get_by_label("Q1 choice 2").check()
    frame.get_by_role("button", name="Check answer").click()
    expect(frame.get_by_text("Explanation 1 in English.")).to_be_visible()
    page.wait_for_function(f"document.querySelector('iframe').height !== '{before}'")
    assert abs(frame_height(page) - content_height(page)) <= 40
    # The guide's own page (another origin than the site's) can't set it.
    shown = frame_height(page)
    page.evaluate("window.postMessage({quizsite: 'height', height: 20}, '*')")
    # The frame's origin can, within bounds: 10⁹ px is 5,000.
    page.frames[1].evaluate("parent.postMessage({quizsite: 'height', height: 1e9}, '*')")
    page.wait_for_function("document.querySelector('iframe').height === '5000'")
    assert shown != 5000
    page.frames[1].evaluate("parent.postMessage({quizsite: 'height', height: -5}, '*')")
    page.wait_for_function("document.querySelector('iframe').height === '150'")


def test_a_site_not_on_the_list_gets_the_frame_refused(page: Page, live_server, quiz):
    refused = []
    page.on("console", lambda m: "frame-ancestors" in m.text and refused.append(m.text))
    with GuideSite(live_server.url) as unlisted:  # Another port: another origin, not listed.
        EmbedOrigin.objects.create(origin="http://127.0.0.1:9", note="Another one")
        with page.expect_response(lambda r: r.url.startswith(live_server.url)) as framed:
            page.goto(unlisted.page(embed_address(live_server, "en", quiz.slug)))
        policy = framed.value.all_headers()["content-security-policy"]
        assert "frame-ancestors http://127.0.0.1:9" in policy and unlisted.url not in policy
        page.wait_for_timeout(500)
        assert refused, "the browser did not report the refused frame"
        # Chromium shows its error page in the frame instead of the quiz.
        assert page.frames[1].url.startswith("chrome-error://"), page.frames[1].url
        expect(page.frame_locator("iframe").get_by_role("button")).to_have_count(0)
        assert not Attempt.objects.exists()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_embed_pages_are_valid_accessible_and_fit_375_px(
    page: Page, live_server, guide_site, quiz, nu_checker, lang
):
    """Each embed page as its frame shows it: the quiz, a question, its feedback, the
    results, one question on its own, a 404; light and dark, 375 px wide."""
    page.set_viewport_size({"width": 375, "height": 700})
    problems = {}

    def check(name: str) -> None:
        html = page.content()
        problems[f"{name}: Nu"] = nu_checker.errors(html)
        problems[f"{name}: axe"] = axe_violations(page)
        page.emulate_media(color_scheme="dark")
        problems[f"{name}: axe, dark"] = axe_violations(page)
        page.emulate_media(color_scheme="light")
        problems[f"{name}: wider than 375 px"] = page.evaluate(
            "document.documentElement.scrollWidth > 375"
        )

    page.goto(embed_address(live_server, lang, quiz.slug))
    check("quiz")
    page.get_by_role("button", name=t(lang, "Start the quiz")).click()
    expect(page.locator("form.question-form")).to_be_visible()
    page.reload()
    check("question")
    page.locator("input[name=choice]").first.check()
    page.get_by_role("button", name=t(lang, "Check answer")).click()
    expect(page.locator("#feedback")).to_be_visible()
    page.reload()
    check("feedback")
    page.get_by_role("link", name=t(lang, "Next question")).click()
    page.locator("input[name=choice]").first.check()
    page.get_by_role("button", name=t(lang, "Check answer")).click()
    page.get_by_role("link", name=t(lang, "See your results")).click()
    page.reload()
    check("results")
    page.goto(embed_address(live_server, lang, quiz.slug, number=1))
    check("one question")
    page.goto(embed_address(live_server, lang, quiz.slug, number=9))
    check("404")
    assert not any(problems.values()), {k: v for k, v in problems.items() if v}
