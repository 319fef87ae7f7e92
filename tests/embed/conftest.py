import pytest
from django.urls import reverse
from django.utils import translation

from quizzes.models import Attempt, EmbedOrigin, Quiz
from tests.factories import make_quiz

GUIDE = "https://guide.example.org"
OTHER = "https://other.example.net"


@pytest.fixture
def embedded_quiz(guide) -> Quiz:
    quiz = make_quiz(guide=guide, questions=3)
    EmbedOrigin.objects.create(origin=GUIDE, quiz=None, note="Our guides")
    return quiz


def embed_url(quiz: Quiz, lang: str = "en", number: int | None = None) -> str:
    with translation.override(lang):
        if number is None:
            return reverse("embed:quiz", kwargs={"slug": quiz.slug})
        return reverse("embed:question", kwargs={"slug": quiz.slug, "number": number})


def start_url(quiz: Quiz, lang: str = "en", number: int | None = None) -> str:
    with translation.override(lang):
        if number is None:
            return reverse("embed:start", kwargs={"slug": quiz.slug})
        return reverse("embed:question_start", kwargs={"slug": quiz.slug, "number": number})


def embed_start(client, quiz: Quiz, lang: str = "en", *, number=None, site=GUIDE) -> Attempt:
    response = client.post(start_url(quiz, lang, number), {"site": site})
    assert response.status_code == 302, response
    return Attempt.objects.order_by("-pk").first()


def attempt_page(attempt: Attempt, number: int, lang: str = "en") -> str:
    return f"/{lang}/embed/attempts/{attempt.public_id}/questions/{number}/"


def results_page(attempt: Attempt, lang: str = "en") -> str:
    return f"/{lang}/embed/attempts/{attempt.public_id}/results/"
