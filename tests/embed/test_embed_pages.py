"""The embed pages: the learner's flow in a guide's frame, framed only by allowed sites."""

import re

import pytest
from django.urls import reverse

from quizzes.models import Answer, Attempt, AttemptKind, EmbedOrigin
from tests.embed.conftest import (
    GUIDE,
    OTHER,
    attempt_page,
    embed_start,
    embed_url,
    results_page,
    start_url,
)
from tests.factories import choice_of, make_quiz, start


def frame_ancestors(response) -> str:
    policy = response["Content-Security-Policy"]
    return next(d for d in policy.split(";") if "frame-ancestors" in d).strip()


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_quiz_taken_in_the_frame_stays_in_the_frame(client, embedded_quiz, lang):
    page = client.get(embed_url(embedded_quiz, lang), HTTP_REFERER=f"{GUIDE}/chapter-2/")
    html = page.content.decode()
    assert page.status_code == 200
    assert 'class="site-header"' not in html and 'class="embed-bar"' in html
    assert f'name="site" value="{GUIDE}"' in html
    assert html.count('target="_blank" rel="noopener"') >= 2  # The guide path, the site.
    attempt = embed_start(client, embedded_quiz, lang)
    assert attempt.embedded_in.origin == GUIDE and attempt.language == lang
    for number in (1, 2, 3):
        url = attempt_page(attempt, number, lang)
        response = client.post(url, {"choice": choice_of(embedded_quiz, number, correct=True).pk})
        assert response["Location"] == f"{url}#feedback"
        feedback = client.get(url).content.decode()
        assert f"Explanation {number}" in feedback or f"Explication {number}" in feedback
        assert (
            f'<a href="https://example.org/guide/#q{number}" target="_blank" rel="noopener">'
            in feedback
        )
        next_url = (
            attempt_page(attempt, number + 1, lang) if number < 3 else results_page(attempt, lang)
        )
        assert f'href="{next_url}"' in feedback
    results = client.get(results_page(attempt, lang))
    assert results.status_code == 200
    assert f'action="/{lang}/embed/quizzes/{embedded_quiz.slug}/start/"' in results.content.decode()
    attempt.refresh_from_db()
    assert attempt.is_finished and attempt.score == 3 and attempt.kind == AttemptKind.QUIZ
    assert Answer.objects.filter(attempt=attempt).count() == 3


def test_the_sites_pages_keep_their_own_links(client, embedded_quiz):
    """The same parts, kept, serve the site and the frame: each its own addresses."""
    embedded = embed_start(client, embedded_quiz)
    client.get(attempt_page(embedded, 1))
    site_attempt = start(client, make_quiz(slug="other", questions=1))
    html = client.get(site_attempt.question_url(1)).content.decode()
    assert "/embed/" not in html and 'target="_blank"' not in html
    assert 'class="site-header"' in html


def test_a_single_question_records_an_attempt_at_it_alone(client, embedded_quiz):
    page = client.get(embed_url(embedded_quiz, number=2), HTTP_REFERER=GUIDE + "/")
    assert "Question 2 prompt" in page.content.decode()
    assert "Question 1 prompt" not in page.content.decode()
    attempt = embed_start(client, embedded_quiz, number=2)
    assert attempt.kind == AttemptKind.QUESTION and attempt.embedded_in.origin == GUIDE
    assert attempt.question_ids == [embedded_quiz.questions.get(position=2).pk]
    url = attempt_page(attempt, 1)
    client.post(url, {"choice": choice_of(embedded_quiz, 2, correct=False).pk})
    assert "Question 1 of 1" in client.get(url).content.decode()
    attempt.refresh_from_db()
    assert attempt.is_finished and attempt.score == 0 and attempt.max_score == 1
    assert attempt.answers.get().question.position == 2


def test_another_questions_start_replaces_an_unanswered_one(client, embedded_quiz):
    first = embed_start(client, embedded_quiz, number=1)
    again = embed_start(client, embedded_quiz, number=1)
    assert again == first  # Resumed.
    other = embed_start(client, embedded_quiz, number=3)
    assert other != first and other.question_ids == [embedded_quiz.questions.get(position=3).pk]
    first.refresh_from_db()
    assert first.abandoned_at is not None


def test_a_single_question_does_not_score_the_quiz(client, embedded_quiz):
    attempt = embed_start(client, embedded_quiz, number=1)
    client.post(attempt_page(attempt, 1), {"choice": choice_of(embedded_quiz, 1, correct=True).pk})
    page = client.get(embed_url(embedded_quiz)).content.decode()
    assert "Passed" not in page and "Start the quiz" in page


def test_a_start_from_an_unlisted_or_missing_site_records_none(client, embedded_quiz):
    assert embed_start(client, embedded_quiz, site=OTHER).embedded_in is None
    client.cookies.clear()
    assert embed_start(client, embedded_quiz, site="").embedded_in is None


def test_a_referer_not_on_the_list_gives_no_site(client, embedded_quiz):
    page = client.get(embed_url(embedded_quiz), HTTP_REFERER=OTHER + "/")
    assert 'name="site" value=""' in page.content.decode()


def test_an_origin_for_another_quiz_does_not_count(client, embedded_quiz):
    other = make_quiz(slug="other", questions=1)
    EmbedOrigin.objects.create(origin=OTHER, quiz=other)
    assert embed_start(client, embedded_quiz, site=OTHER).embedded_in is None
    assert embed_start(client, other, site=OTHER).embedded_in.origin == OTHER


# Headers


def test_embed_pages_are_framed_by_the_allowed_origins_only(client, embedded_quiz):
    EmbedOrigin.objects.create(origin="http://localhost:8001", quiz=embedded_quiz)
    other = make_quiz(slug="other", questions=1)
    EmbedOrigin.objects.create(origin=OTHER, quiz=other)
    page = client.get(embed_url(embedded_quiz))
    assert frame_ancestors(page) == f"frame-ancestors http://localhost:8001 {GUIDE}"
    assert "X-Frame-Options" not in page
    attempt = embed_start(client, embedded_quiz)
    for url in (attempt_page(attempt, 1), embed_url(embedded_quiz, number=1)):
        response = client.get(url)
        assert frame_ancestors(response) == f"frame-ancestors http://localhost:8001 {GUIDE}"
        assert "X-Frame-Options" not in response
    assert frame_ancestors(client.get(embed_url(other))) == f"frame-ancestors {GUIDE} {OTHER}"


def test_without_an_allowed_origin_the_embed_is_framed_by_nobody(client, guide):
    quiz = make_quiz(guide=guide, questions=1)
    page = client.get(embed_url(quiz))
    assert page.status_code == 200
    assert frame_ancestors(page) == "frame-ancestors 'none'"
    assert page["X-Frame-Options"] == "DENY"


@pytest.mark.parametrize(
    "name",
    ["home", "login", "signup", "password_reset", "account_delete", "progress"],
)
def test_the_sites_pages_are_never_framed(client, embedded_quiz, name):
    response = client.get(reverse(name))
    assert frame_ancestors(response) == "frame-ancestors 'none'"
    assert response["X-Frame-Options"] == "DENY"


def test_the_admin_and_the_sites_quiz_pages_are_never_framed(client, embedded_quiz):
    attempt = start(client, embedded_quiz)
    for url in ("/admin/login/", attempt.question_url(1), embedded_quiz.get_absolute_url()):
        response = client.get(url)
        assert frame_ancestors(response) == "frame-ancestors 'none'", url
        assert response["X-Frame-Options"] == "DENY"


def test_an_attempt_from_the_site_is_not_framed_at_its_site_address(client, embedded_quiz):
    """The frame may open the site's address of an attempt only through its embed address."""
    attempt = embed_start(client, embedded_quiz)
    response = client.get(attempt.question_url(1).replace("/embed", ""))
    assert frame_ancestors(response) == "frame-ancestors 'none'"


# Not found, bad input, no state change on GET


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_an_unpublished_quiz_or_unknown_question_is_a_clear_404_in_the_frame(client, guide, lang):
    EmbedOrigin.objects.create(origin=GUIDE)
    draft = make_quiz(guide=guide, questions=2, published=False)
    published = make_quiz(slug="live", questions=2)
    for url in (
        embed_url(draft, lang),
        embed_url(draft, lang, number=1),
        embed_url(published, lang, number=3),
        embed_url(published, lang, number=0),
        f"/{lang}/embed/quizzes/no-such-quiz/",
        f"/{lang}/embed/nothing/",
    ):
        response = client.get(url)
        assert response.status_code == 404, url
        html = response.content.decode()
        assert 'class="site-header"' not in html and 'class="embed-bar"' in html
        assert frame_ancestors(response) == f"frame-ancestors {GUIDE}"
    assert client.post(start_url(draft, lang), {"site": GUIDE}).status_code == 404
    assert client.post(start_url(published, lang, 9), {"site": GUIDE}).status_code == 404
    assert not Attempt.objects.exists()


def test_no_get_changes_anything(client, embedded_quiz):
    for url in (
        embed_url(embedded_quiz),
        embed_url(embedded_quiz, number=1),
        start_url(embedded_quiz),
        start_url(embedded_quiz, number=1),
    ):
        assert client.get(url, HTTP_REFERER=GUIDE).status_code in (200, 405)
    assert not Attempt.objects.exists()
    assert "learner" not in client.cookies


@pytest.mark.parametrize(
    "site",
    [
        "",
        " ",
        "x" * 5000,
        "\u00e9\u00e8",
        "javascript:alert(1)",
        "https://guide.example.org:99999",
        "https://[::1",
        "https://guide.example.org.evil.test",
        "http://guide.example.org",
        "https://*.example.org",
        ["https://a.example", "https://b.example"],
    ],
)
def test_any_posted_site_starts_without_an_error(client, embedded_quiz, site):
    response = client.post(start_url(embedded_quiz), {"site": site})
    assert response.status_code == 302
    assert Attempt.objects.get().embedded_in is None


@pytest.mark.parametrize(
    "referer", ["", "not a url", "https://[::1", "https://guide.example.org:0/", "\u00e9" * 3000]
)
def test_any_referer_shows_the_page(client, embedded_quiz, referer):
    assert client.get(embed_url(embedded_quiz), HTTP_REFERER=referer).status_code == 200


@pytest.mark.parametrize("number", ["-1", "99999999999999999999", "abc"])
def test_odd_question_numbers_are_404(client, embedded_quiz, number):
    url = f"/en/embed/quizzes/{embedded_quiz.slug}/questions/{number}/"
    assert client.get(url).status_code == 404


def test_embed_script_address_is_stable_and_cached(client):
    response = client.get("/embed.js")
    assert response.status_code == 302
    assert response["Location"].endswith("embed/embed.js")
    assert "max-age=3600" in response["Cache-Control"]


# Cookies


def test_over_https_the_frames_cookies_are_partitioned(client, embedded_quiz):
    page = client.get(embed_url(embedded_quiz), secure=True)
    csrf = page.cookies["csrftoken"].OutputString()
    assert "SameSite=None" in csrf and "Secure" in csrf and "Partitioned" in csrf
    started = client.post(start_url(embedded_quiz), {"site": GUIDE}, secure=True)
    key = started.cookies["learner"].OutputString()
    assert "SameSite=None" in key and "Secure" in key and "Partitioned" in key


def test_the_sites_own_cookies_stay_as_the_settings_make_them(client, embedded_quiz):
    started = client.post(reverse("quiz_start", kwargs={"slug": embedded_quiz.slug}), secure=True)
    key = started.cookies["learner"].OutputString()
    assert "SameSite=Lax" in key and "Partitioned" not in key


def test_over_plain_http_elsewhere_than_the_loopback_they_are_not(client, embedded_quiz):
    started = client.post(start_url(embedded_quiz), {"site": GUIDE})
    key = started.cookies["learner"].OutputString()
    assert "SameSite=Lax" in key and "Partitioned" not in key and "Secure" not in key


def test_the_loopback_counts_as_secure(client, embedded_quiz, settings):
    settings.ALLOWED_HOSTS = ["localhost"]
    started = client.post(start_url(embedded_quiz), {"site": GUIDE}, HTTP_HOST="localhost:8000")
    assert "Partitioned" in started.cookies["learner"].OutputString()


def test_the_connected_page_lets_frames_have_the_session(client, embedded_quiz, django_user_model):
    user = django_user_model.objects.create_user("ana", password="a long passphrase")
    client.force_login(user)
    page = client.get(reverse("embed:connected"), secure=True)
    assert page.status_code == 200 and "Your account is connected" in page.content.decode()
    session = page.cookies["sessionid"].OutputString()
    assert "SameSite=None" in session and "Secure" in session
    assert 'class="site-header"' not in page.content.decode()
    framed = client.get(embed_url(embedded_quiz), secure=True).content.decode()
    assert "Signed in as ana: your answers are kept in your account." in framed


def test_practice_from_the_frame_stays_in_it_and_keeps_the_site(client, embedded_quiz):
    attempt = embed_start(client, embedded_quiz)
    for number in (1, 2, 3):
        choice = choice_of(embedded_quiz, number, correct=number != 2)
        client.post(attempt_page(attempt, number), {"choice": choice.pk})
    response = client.post(f"/en/embed/attempts/{attempt.public_id}/practice/")
    practice = Attempt.objects.get(kind=AttemptKind.PRACTICE)
    assert response["Location"] == attempt_page(practice, 1)
    assert practice.embedded_in == attempt.embedded_in


def test_retry_from_the_frame_s_results_keeps_the_site(client, embedded_quiz):
    attempt = embed_start(client, embedded_quiz)
    for number in (1, 2, 3):
        client.post(
            attempt_page(attempt, number),
            {"choice": choice_of(embedded_quiz, number, correct=True).pk},
        )
    results = client.get(results_page(attempt)).content.decode()
    retry = re.search(
        r'<form method="post" action="([^"]+)" class="start-form">.*?</form>', results
    )
    posted = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', retry[0]))
    assert retry[1] == start_url(embedded_quiz) and posted["site"] == GUIDE
    client.post(retry[1], posted)
    retried = Attempt.objects.exclude(pk=attempt.pk).get()
    assert retried.embedded_in == attempt.embedded_in
    # The site's own results of the same attempt say no site: its Retry is the site's.
    site_results = client.get(attempt.get_absolute_url()).content.decode()
    assert 'name="site"' not in site_results


@pytest.mark.parametrize("host", ["evil.example", "localhost:notaport", "[::1"])
def test_a_hostile_host_is_a_400(client, embedded_quiz, host):
    assert client.get(embed_url(embedded_quiz), HTTP_HOST=host).status_code == 400
