"""oEmbed (quizzes/embed/oembed.py): a quiz's address, or its embed pages', gives the frame to
show; every parameter's edge values get a 4xx with a message, never a 500; the quiz page's
<head> points to it."""

import html
import re
from html.parser import HTMLParser
from urllib.parse import quote, urlsplit

import pytest
from django.urls import reverse
from django.utils import translation

from tests.factories import make_quiz

SITE = "http://127.0.0.1:8000"
OEMBED = "/oembed"


@pytest.fixture(autouse=True)
def site_url(settings):
    settings.SITE_URL = SITE


def page_url(slug: str = "dp-quiz", lang: str = "en") -> str:
    with translation.override(lang):
        return SITE + reverse("quiz_detail", kwargs={"slug": slug})


def embed_url(slug: str = "dp-quiz", lang: str = "en", number: int | None = None) -> str:
    with translation.override(lang):
        if number is None:
            return SITE + reverse("embed:quiz", kwargs={"slug": slug})
        return SITE + reverse("embed:question", kwargs={"slug": slug, "number": number})


def ask(client, query: str):
    """GET /oembed with `query` as it is sent, escapes and all."""
    return client.get(f"{OEMBED}?{query}")


def asked(client, **params):
    return client.get(OEMBED, params)


class FrameParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.frames: list[dict] = []

    def handle_starttag(self, tag, attrs):
        if tag == "iframe":
            self.frames.append(dict(attrs))


def frame_of(markup: str) -> dict:
    parser = FrameParser()
    parser.feed(markup)
    (frame,) = parser.frames
    return frame


def test_a_quiz_page_gives_its_frame(client, quiz, django_assert_num_queries):
    with django_assert_num_queries(1):
        r = asked(client, url=page_url())
    assert r.status_code == 200
    assert r["Content-Type"] == "application/json"
    assert r["Access-Control-Allow-Origin"] == "*"
    data = r.json()
    assert data["version"] == "1.0"
    assert data["type"] == "rich"
    assert data["title"] == "Data parallelism quiz"
    assert data["provider_name"] == "Quizsite"
    assert data["provider_url"] == SITE + "/"
    assert data["cache_age"] == 86_400
    assert (data["width"], data["height"]) == (640, 640)
    frame = frame_of(data["html"])
    assert frame["src"] == embed_url()
    assert frame["title"] == "Data parallelism quiz"
    assert (frame["width"], frame["height"]) == ("640", "640")


def test_the_french_page_gives_the_french_frame(client, quiz):
    data = asked(client, url=page_url(lang="fr")).json()
    assert data["title"] == "Quiz sur le parallélisme des données"
    assert frame_of(data["html"])["src"] == embed_url(lang="fr")


def test_an_embed_page_gives_its_frame(client, quiz):
    data = asked(client, url=embed_url(lang="fr")).json()
    assert frame_of(data["html"])["src"] == embed_url(lang="fr")


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_question_gives_its_own_frame(client, quiz, lang, django_assert_num_queries):
    with django_assert_num_queries(1):
        data = asked(client, url=embed_url(lang=lang, number=8)).json()
    title = {"en": "Data parallelism quiz, question 8"}.get(
        lang, "Quiz sur le parallélisme des données, question 8"
    )
    assert data["title"] == title
    assert data["height"] == 520
    frame = frame_of(data["html"])
    assert frame["src"] == embed_url(lang=lang, number=8)
    assert frame["title"] == title


def test_a_french_quiz_without_its_french_title_falls_back_to_english(client, db):
    make_quiz(french=False)
    assert asked(client, url=page_url(lang="fr")).json()["title"] == "Data parallelism quiz"


def test_maxwidth_and_maxheight_bound_the_frame(client, quiz):
    data = asked(client, url=page_url(), maxwidth="300", maxheight="200").json()
    assert (data["width"], data["height"]) == (300, 200)
    frame = frame_of(data["html"])
    assert (frame["width"], frame["height"]) == ("300", "200")


def test_a_maxwidth_beyond_the_frame_changes_nothing(client, quiz):
    data = asked(client, url=page_url(), maxwidth="999999999", maxheight="1").json()
    assert (data["width"], data["height"]) == (640, 1)


@pytest.mark.parametrize("given", ["json", "JSON", ""])
def test_json_is_the_format(client, quiz, given):
    assert asked(client, url=page_url(), format=given).status_code == 200


@pytest.mark.parametrize("given", ["xml", "XML", "yaml"])
def test_another_format_is_not_implemented(client, quiz, given, django_assert_num_queries):
    with django_assert_num_queries(0):
        r = asked(client, url=page_url(), format=given)
    assert r.status_code == 501
    assert "JSON" in r.content.decode()


SIZES = [
    "0",
    "-1",
    "1.5",
    "1e3",
    " 10",
    "+10",
    "0x10",
    "9" * 10,
    "9" * 10_000,
    "١٢",  # Arabic-Indic digits: int() would read them
    "10px",
]
RAW_SIZES = ["%01", "1%0A", "%ED%A0%80", "%FF", "10%20"]


@pytest.mark.parametrize("name", ["maxwidth", "maxheight"])
@pytest.mark.parametrize("value", SIZES)
def test_a_size_that_is_no_number_of_pixels_is_refused(client, quiz, name, value):
    r = asked(client, url=page_url(), **{name: value})
    assert r.status_code == 400
    assert name in r.content.decode()
    assert "pixels" in r.content.decode()


@pytest.mark.parametrize("name", ["maxwidth", "maxheight"])
@pytest.mark.parametrize("value", RAW_SIZES)
def test_a_size_with_bytes_that_are_no_digits_is_refused(client, quiz, name, value):
    r = ask(client, f"url={quote(page_url())}&{name}={value}")
    assert r.status_code == 400
    assert name in r.content.decode()


@pytest.mark.parametrize(
    "query",
    ["format=%01", "format=" + "x" * 10_000, "format=%ED%A0%80", "format=j%20son", "format=1"],
)
def test_a_malformed_format_is_refused(client, quiz, query):
    r = ask(client, f"url={quote(page_url())}&{query}")
    assert r.status_code == 400
    assert "json" in r.content.decode()


@pytest.mark.parametrize(
    "query",
    [
        "",
        "url=",
        "url=dp-quiz",
        "url=/en/quizzes/dp-quiz/",
        "url=ftp%3A%2F%2F127.0.0.1%3A8000%2Fen%2Fquizzes%2Fdp-quiz%2F",
        "url=javascript%3Aalert(1)",
        "url=http%3A%2F%2F%5B%2Fen%2Fquizzes%2Fdp-quiz%2F",  # http://[/…
        "url=http%3A%2F%2F127.0.0.1%3A99999%2Fen%2Fquizzes%2Fdp-quiz%2F",  # port out of range
        "url=http%3A%2F%2F127.0.0.1%3A8000%2Fen%2Fquizzes%2Fdp-quiz%2F%0A",  # a line feed
        "url=http%3A%2F%2F127.0.0.1%3A8000%2Fen%2Fquizzes%2Fdp%09quiz%2F",  # a tab
        "url=http%3A%2F%2F127.0.0.1%3A8000%2Fen%2Fquizzes%2F%25FF%2F",  # %FF in the path
        "url=http%3A%2F%2F127.0.0.1%3A8000%2Fen%2Fquizzes%2F%25ED%25A0%2580%2F",
        "url=http%3A%2F%2F127.0.0.1%3A8000%5C%40evil.example%2Fen%2Fquizzes%2Fdp-quiz%2F",
        "url=" + quote(page_url() + "x" * 10_000),
    ],
)
def test_a_url_that_is_no_web_address_is_refused(client, quiz, query, django_assert_num_queries):
    with django_assert_num_queries(0):
        r = ask(client, query)
    assert r.status_code == 400
    assert "url" in r.content.decode()


@pytest.mark.parametrize(
    "query",
    [
        "url=http%3A%2F%2F127.0.0.1%3A8000%2Fen%2Fquizzes%2Fdp-quiz%2F%00",
        "url=http%3A%2F%2F127.0.0.1%3A8000%2Fen%2Fquizzes%2Fdp-quiz%2F&maxwidth=1%00",
        "url=http%3A%2F%2F127.0.0.1%3A8000%2Fen%2Fquizzes%2Fdp-quiz%2F&maxheight=%00",
        "url=http%3A%2F%2F127.0.0.1%3A8000%2Fen%2Fquizzes%2Fdp-quiz%2F&format=json%00",
        "url%00=x",
    ],
)
def test_a_nul_in_any_parameter_is_refused(client, quiz, query, django_assert_num_queries):
    """By the site's middleware, before the view (quizsite/middleware.py)."""
    with django_assert_num_queries(0):
        assert ask(client, query).status_code == 400


def test_url_given_twice_is_refused(client, quiz):
    r = ask(client, f"url={quote(page_url())}&url={quote(page_url())}")
    assert r.status_code == 400
    assert "once" in r.content.decode()


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example/en/quizzes/dp-quiz/",
        "http://127.0.0.1:8001/en/quizzes/dp-quiz/",  # another port
        "http://127.0.0.1:8000@evil.example/en/quizzes/dp-quiz/",
        "http://user:pass@127.0.0.1:8000/en/quizzes/dp-quiz/",
        "https://evil.example/?url=" + quote(SITE + "/en/quizzes/dp-quiz/"),
        SITE + "/en/quizzes/unknown/",
        SITE + "/en/quizzes/dp-quiz",  # no trailing slash: no page
        SITE + "/de/quizzes/dp-quiz/",
        SITE + "/quizzes/dp-quiz/",
        SITE + "/en/",
        SITE + "/en/progress/",
        SITE + "/en/quizzes/dp-quiz/start/",
        SITE + "/oembed",
        SITE + "/admin/quizzes/quiz/",
        SITE + "/",
        SITE,
        SITE + "/en/embed/quizzes/dp-quiz/questions/0/",
        SITE + "/en/embed/quizzes/dp-quiz/questions/9/",
        SITE + "/en/embed/quizzes/dp-quiz/questions/" + "9" * 30 + "/",
        SITE + "/en/embed/quizzes/dp-quiz/questions/-1/",
        SITE + "/en/quizzes/" + "x" * 1_900 + "/",
    ],
)
def test_an_address_of_no_quiz_of_this_site_is_not_found(client, quiz, url):
    r = asked(client, url=url)
    assert r.status_code == 404
    assert "no quiz" in r.content.decode()


def test_a_lone_surrogate_s_bytes_are_no_slug(client, quiz):
    """Bytes that are no UTF-8 in the query are read as U+FFFD, which no slug holds."""
    r = ask(client, "url=http%3A%2F%2F127.0.0.1%3A8000%2Fen%2Fquizzes%2F%ED%A0%80%2F")
    assert r.status_code == 404


def test_an_unpublished_quiz_is_not_found(client, db, django_assert_num_queries):
    make_quiz(published=False)
    with django_assert_num_queries(1):
        assert asked(client, url=page_url()).status_code == 404
    assert asked(client, url=embed_url(number=1)).status_code == 404


def test_a_nested_address_in_the_query_is_left_aside(client, quiz):
    url = page_url() + "?url=" + quote("https://evil.example/") + "#section"
    data = asked(client, url=url).json()
    assert frame_of(data["html"])["src"] == embed_url()


def test_an_escaped_path_is_read(client, quiz):
    assert asked(client, url=SITE + "/en/quizzes/dp%2Dquiz/").status_code == 200


def test_the_address_the_request_came_to_is_this_site_too(client, quiz):
    """The discovery link of a page served on another of ALLOWED_HOSTS; the frame is still on
    SITE_URL."""
    data = asked(client, url="http://testserver/en/quizzes/dp-quiz/").json()
    assert frame_of(data["html"])["src"] == embed_url()


def test_the_frame_is_on_site_url(client, quiz, settings):
    settings.SITE_URL = "https://quiz.example.com"
    data = asked(client, url="https://QUIZ.example.com:443/fr/quizzes/dp-quiz/").json()
    assert frame_of(data["html"])["src"] == "https://quiz.example.com/fr/embed/quizzes/dp-quiz/"
    assert data["provider_url"] == "https://quiz.example.com/"


def test_a_title_with_quotes_is_escaped_in_the_frame(client, db):
    make_quiz(title_en="Say \"hi\" & <b>bye</b> 'now'")
    data = asked(client, url=page_url()).json()
    assert frame_of(data["html"])["title"] == "Say \"hi\" & <b>bye</b> 'now'"
    assert "<b>" not in data["html"]


def test_only_get_and_head_are_answered(client, quiz):
    assert client.post(OEMBED, {"url": page_url()}).status_code == 405
    assert client.head(f"{OEMBED}?url={quote(page_url())}").status_code == 200


def test_unknown_parameters_are_left_aside(client, quiz):
    assert asked(client, url=page_url(), callback="x", lang="de").status_code == 200


# Discovery.

LINK = re.compile(
    r'<link rel="alternate" type="application/json\+oembed" href="([^"]+)" title="([^"]+)">'
)


def discovery_of(r) -> tuple[str, str]:
    (found,) = LINK.findall(r.content.decode())
    return html.unescape(found[0]), html.unescape(found[1])


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_quiz_page_points_to_its_oembed(client, quiz, lang):
    page = client.get(page_url(lang=lang).removeprefix(SITE))
    head = page.content.decode().split("</head>")[0]
    assert "application/json+oembed" in head
    href, title = discovery_of(page)
    assert href.startswith(SITE + OEMBED + "?")
    data = client.get(href.removeprefix(SITE)).json()
    assert (
        data["title"]
        == title
        == {"en": "Data parallelism quiz"}.get(lang, "Quiz sur le parallélisme des données")
    )
    assert frame_of(data["html"])["src"] == embed_url(lang=lang)


def test_a_signed_in_learner_s_quiz_page_points_to_oembed_too(client, quiz, django_user_model):
    client.force_login(django_user_model.objects.create_user("ada", password="x"))
    href, _title = discovery_of(client.get(page_url().removeprefix(SITE)))
    assert urlsplit(href).path == OEMBED


def test_a_refusal_is_in_the_reader_s_language(client, quiz):
    r = client.get(OEMBED, {"url": page_url(), "maxwidth": "-1"}, HTTP_ACCEPT_LANGUAGE="fr")
    assert r.status_code == 400
    assert r.content.decode() == (
        "«\u00a0maxwidth\u00a0» doit être un nombre entier de pixels, de 1 à 999999999.\n"
    )
