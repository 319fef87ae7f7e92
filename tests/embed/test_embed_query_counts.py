"""The embed pages' queries: the learner pages' own, and one more for the sites allowed to
frame them, whatever the number of questions or allowed sites."""

import pytest

from quizzes.models import Attempt, EmbedOrigin
from tests.embed.conftest import GUIDE, attempt_page, embed_url, results_page, start_url
from tests.factories import choice_of, make_quiz
from tests.learning.test_query_counts import (
    ANSWER_POST,
    LAST_ANSWER_POST,
    QUESTION_PAGE,
    RESULTS_PAGE,
    START_POST,
)

ORIGINS = 1  # The sites allowed to frame the page (quizzes/embed/origins.py).
QUIZ_READ = 1  # The published quiz's stamp (its content kept by the process).
STATUS = 1  # The learner's status at the quiz, once their browser has a key.


@pytest.fixture(params=[(3, 1), (30, 20)], ids=["3-questions-1-site", "30-questions-20-sites"])
def sized_quiz(request, guide):
    questions, sites = request.param
    quiz = make_quiz(guide=guide, questions=questions)
    EmbedOrigin.objects.create(origin=GUIDE)
    for n in range(1, sites):
        EmbedOrigin.objects.create(origin=f"https://guide{n}.example.org", quiz=quiz)
    return quiz


def test_embed_pages(client, sized_quiz, django_assert_num_queries):
    client.get(embed_url(sized_quiz))  # The content, read once by the process.
    with django_assert_num_queries(QUIZ_READ + ORIGINS):
        assert client.get(embed_url(sized_quiz), HTTP_REFERER=GUIDE).status_code == 200
    with django_assert_num_queries(QUIZ_READ + ORIGINS):
        assert client.get(embed_url(sized_quiz, number=2)).status_code == 200
    with django_assert_num_queries(START_POST + ORIGINS):
        assert client.post(start_url(sized_quiz), {"site": GUIDE}).status_code == 302
    attempt = Attempt.objects.get()
    with django_assert_num_queries(QUIZ_READ + STATUS + ORIGINS):
        assert client.get(embed_url(sized_quiz)).status_code == 200
    with django_assert_num_queries(QUESTION_PAGE + ORIGINS):
        assert client.get(attempt_page(attempt, 1)).status_code == 200
    count = sized_quiz.questions.count()
    for number in range(1, count + 1):
        queries = LAST_ANSWER_POST if number == count else ANSWER_POST
        choice = choice_of(sized_quiz, number, correct=True)
        with django_assert_num_queries(queries + ORIGINS):
            client.post(attempt_page(attempt, number), {"choice": choice.pk})
    with django_assert_num_queries(RESULTS_PAGE + ORIGINS):
        assert client.get(results_page(attempt)).status_code == 200


def test_one_question_start(client, sized_quiz, django_assert_num_queries):
    client.get(embed_url(sized_quiz))
    with django_assert_num_queries(START_POST + ORIGINS):
        response = client.post(start_url(sized_quiz, number=2), {"site": GUIDE})
    assert response.status_code == 302
    assert Attempt.objects.get().embedded_in.origin == GUIDE
