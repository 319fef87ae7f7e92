"""The snippets a quiz's and a question's change pages give an editor to paste into a guide
(quizzes/admin/embedding.py): every language's plain frame and script form, for a published
quiz only."""

import html
import re
from html.parser import HTMLParser

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from quizzes.models import EmbedOrigin
from tests.factories import make_quiz

SITE = "https://quiz.example.com"


@pytest.fixture(autouse=True)
def site_url(settings):
    settings.SITE_URL = SITE


def embed_url(slug: str, lang: str, number: int | None = None) -> str:
    with translation.override(lang):
        if number is None:
            return SITE + reverse("embed:quiz", kwargs={"slug": slug})
        return SITE + reverse("embed:question", kwargs={"slug": slug, "number": number})


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.texts: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.texts.append(data)


def parsed(markup: str) -> Tags:
    tags = Tags()
    tags.feed(markup)
    return tags


def boxes(r) -> dict[str, str]:
    """Each snippet box of the page by its id: the text an editor copies."""
    found = re.findall(
        r'<textarea id="([^"]+)" class="embed-snippet"[^>]*>(.*?)</textarea>',
        r.content.decode(),
        re.S,
    )
    return {box_id: html.unescape(text) for box_id, text in found}


def quiz_page(client, quiz, lang: str = "en"):
    """The admin speaks the browser's language."""
    return client.get(
        reverse("admin:quizzes_quiz_change", args=[quiz.pk]), HTTP_ACCEPT_LANGUAGE=lang
    )


def question_page(client, question):
    return client.get(reverse("admin:quizzes_question_change", args=[question.pk]))


def test_a_published_quiz_gives_each_language_s_frame_and_script(editor_client, quiz):
    r = quiz_page(editor_client, quiz)
    assert r.status_code == 200
    shown = boxes(r)
    assert set(shown) == {
        "embed-quiz-en-iframe",
        "embed-quiz-en-script",
        "embed-quiz-fr-iframe",
        "embed-quiz-fr-script",
    }
    titles = {"en": "Data parallelism quiz", "fr": "Quiz sur le parallélisme des données"}
    for lang, title in titles.items():
        ((tag, frame),) = parsed(shown[f"embed-quiz-{lang}-iframe"]).tags
        assert tag == "iframe"
        assert frame["src"] == embed_url("dp-quiz", lang)
        assert frame["title"] == title
        assert frame["height"] == "640"
        script = parsed(shown[f"embed-quiz-{lang}-script"])
        assert script.tags == [
            ("a", {"class": "quizsite-embed", "href": embed_url("dp-quiz", lang)}),
            ("script", {"src": SITE + "/embed.js", "async": None}),
        ]
        assert script.texts[0] == title
    # Each box is labelled, and oEmbed's address is given.
    page = r.content.decode()
    for box_id in shown:
        assert f'<label id="{box_id}-label" for="{box_id}">' in page
    assert f"<code>{SITE}/en/quizzes/dp-quiz/</code>" in page


def test_the_copy_buttons_come_from_a_static_script_in_the_editor_s_language(editor_client, quiz):
    page = quiz_page(editor_client, quiz, "fr").content.decode()
    (script,) = [
        attrs
        for tag, attrs in parsed(page).tags
        if tag == "script" and attrs.get("src", "").endswith("quizsite/admin-copy.js")
    ]
    assert script["data-copy"] == "Copier"
    assert script["data-copied"] == "Copié dans le presse-papiers."


def test_an_unpublished_quiz_must_be_published_first(editor_client, db):
    quiz = make_quiz(published=False)
    page = quiz_page(editor_client, quiz).content.decode()
    assert "Publish the quiz first" in page
    assert "allowed origins" in page
    assert 'class="embed-snippet"' not in page
    question = quiz.questions.get(position=2)
    page = question_page(editor_client, question).content.decode()
    assert "Publish the quiz first" in page
    assert 'class="embed-snippet"' not in page


@pytest.mark.parametrize("published", [True, False], ids=["published", "unpublished"])
def test_the_sites_allowed_to_embed_it_are_listed(editor_client, db, published):
    quiz = make_quiz(published=published)
    other = make_quiz(slug="other-quiz")
    EmbedOrigin.objects.create(origin="https://guide.example.org")
    EmbedOrigin.objects.create(origin="https://docs.example.net", quiz=quiz)
    EmbedOrigin.objects.create(origin="https://elsewhere.example.com", quiz=other)
    for r in (quiz_page(editor_client, quiz), question_page(editor_client, quiz.questions.first())):
        page = r.content.decode()
        assert "<li><code>https://docs.example.net</code> (this quiz)</li>" in page
        assert "<li><code>https://guide.example.org</code> (every quiz)</li>" in page
        assert "elsewhere.example.com" not in page
        assert f'<a href="{reverse("admin:quizzes_embedorigin_changelist")}">' in page


def test_no_site_allowed_yet_is_said(editor_client, quiz):
    page = quiz_page(editor_client, quiz, "fr").content.decode()
    assert "Aucun site n’est encore autorisé à l’intégrer." in page


def test_a_french_editor_reads_french(editor_client, db):
    quiz = make_quiz(published=False)
    page = quiz_page(editor_client, quiz, "fr").content.decode()
    assert "Publiez d’abord le quiz" in page


def test_a_question_gives_the_frame_of_its_place_in_the_quiz(editor_client, quiz):
    quiz.questions.filter(position=2).delete()  # Positions 1, 3, 4…: the third is number 2.
    question = quiz.questions.get(position=3)
    r = question_page(editor_client, question)
    assert r.status_code == 200
    shown = boxes(r)
    assert set(shown) == {
        "embed-question-en-iframe",
        "embed-question-en-script",
        "embed-question-fr-iframe",
        "embed-question-fr-script",
    }
    ((_tag, frame),) = parsed(shown["embed-question-fr-iframe"]).tags
    assert frame["src"] == embed_url("dp-quiz", "fr", 2)
    assert frame["title"] == "Quiz sur le parallélisme des données, question 2"
    assert frame["height"] == "520"
    script = parsed(shown["embed-question-en-script"])
    assert script.tags[0][1]["href"] == embed_url("dp-quiz", "en", 2)
    assert script.texts[0] == "Data parallelism quiz, question 2"


def test_the_question_s_snippet_costs_one_query(editor_client, quiz, django_assert_num_queries):
    """Its place in the quiz; an unpublished quiz's page shows none, and reads no place."""
    question = quiz.questions.get(position=3)
    quiz.is_published = False
    quiz.save()
    with CaptureQueriesContext(connection) as unpublished:
        question_page(editor_client, question)
    quiz.is_published = True
    quiz.save()
    with django_assert_num_queries(len(unpublished) + 1):
        question_page(editor_client, question)


def test_quotes_and_markup_in_a_title_stay_text(editor_client, db):
    title = "Say \"hi\" & <b>bye</b> 'now' </textarea><script>alert(1)</script>"
    quiz = make_quiz(slug="say-hi-2", title_en=title, title_fr=title)
    r = quiz_page(editor_client, quiz)
    page = r.content.decode()
    assert "<script>alert(1)</script>" not in page
    assert "<b>bye</b>" not in page
    shown = boxes(r)
    ((_tag, frame),) = parsed(shown["embed-quiz-en-iframe"]).tags
    assert frame["title"] == title
    assert frame["src"] == embed_url("say-hi-2", "en")
    script = parsed(shown["embed-quiz-en-script"])
    assert script.texts[0] == title
    assert [tag for tag, _attrs in script.tags] == ["a", "script"]
    question = quiz.questions.get(position=1)
    shown = boxes(question_page(editor_client, question))
    ((_tag, frame),) = parsed(shown["embed-question-en-iframe"]).tags
    assert frame["title"] == f"{title}, question 1"
