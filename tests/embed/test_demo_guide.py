"""`make run`'s demo guide page (quizzes/demo/guide/index.html) embeds the demo quiz with the
script and its question 2 in a plain frame, at the addresses of the demo site: each is a
published quiz's, as oEmbed says. (tests/browser/test_demo_guide.py checks its HTML.)"""

from html.parser import HTMLParser
from io import StringIO
from urllib.parse import quote

import pytest
from django.conf import settings
from django.core.management import call_command
from django.urls import reverse
from django.utils import translation

GUIDE = settings.BASE_DIR / "quizzes" / "demo" / "guide" / "index.html"
DEMO_SITE = "http://127.0.0.1:8000"  # `make run`'s
DEMO_QUIZ = "data-parallelism-quiz"


class Embeds(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.frames, self.links, self.scripts, self.styles = [], [], [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "iframe":
            self.frames.append(attrs["src"])
        elif tag == "a" and attrs.get("class") == "quizsite-embed":
            self.links.append(attrs["href"])
        elif tag == "script":
            self.scripts.append(attrs.get("src"))
        elif tag == "link" and attrs.get("rel") == "stylesheet":
            self.styles.append(attrs["href"])


@pytest.fixture
def embeds() -> Embeds:
    parser = Embeds()
    parser.feed(GUIDE.read_text())
    return parser


def test_the_guide_embeds_the_demo_quiz_and_one_question(embeds):
    with translation.override("en"):
        quiz = reverse("embed:quiz", kwargs={"slug": DEMO_QUIZ})
        question = reverse("embed:question", kwargs={"slug": DEMO_QUIZ, "number": 2})
    assert embeds.frames == [DEMO_SITE + question]
    assert embeds.links == [DEMO_SITE + quiz]
    assert embeds.scripts == [DEMO_SITE + "/embed.js"]
    assert all((GUIDE.parent / href).is_file() for href in embeds.styles)


def test_the_guide_s_addresses_are_the_demo_s_published_quiz(client, db, settings, embeds):
    call_command("loaddemo", stdout=StringIO())
    settings.SITE_URL = DEMO_SITE
    for url in embeds.frames + embeds.links:
        r = client.get(f"/oembed?url={quote(url)}")
        assert r.status_code == 200, url
        assert r.json()["html"].startswith(f'<iframe src="{url}"')


def test_make_run_serves_the_guide_on_the_second_port():
    makefile = (settings.BASE_DIR / "Makefile").read_text()
    assert "GUIDE_PORT ?= 8001" in makefile
    assert "http.server $(GUIDE_PORT) --bind $(HOST) --directory quizzes/demo/guide" in makefile
