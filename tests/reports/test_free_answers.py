"""The most frequent wrong answers of questions answered by typing, against the hand-computed
`free_quiz` of tests/reports/report_data.py."""

import csv
import io

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from quizzes.reports import selectors as reports
from tests.factories import make_numerical, make_quiz, make_short_answer
from tests.reports.report_data import FREE, type_answers

URL = "/{lang}/reports/quizzes/free-quiz/"
NBSP = "\u00a0"


def _wrong(quiz, **filters) -> list[list[tuple]]:
    items = reports.item_analysis(quiz, reports.ReportFilter(**filters)).questions
    return [
        [
            (w.response, w.count, dict(w.by_language), w.matched and w.matched.text_en)
            for w in item.wrong_responses
        ]
        for item in items
    ]


def test_the_most_frequent_wrong_answers_with_their_counts_per_language(free_quiz):
    assert _wrong(free_quiz) == [
        [
            ("32", 3, {"en": 2, "fr": 1}, "32"),
            ("1000", 2, {"en": 1, "fr": 1}, None),
            ("7", 1, {"en": 1, "fr": 0}, None),
        ],
        [
            ("gather", 2, {"en": 1, "fr": 1}, None),
            ("reduce", 2, {"en": 1, "fr": 1}, None),
            ("broadcast", 1, {"en": 1, "fr": 0}, "*broadcast*"),
            ("diffusion", 1, {"en": 0, "fr": 1}, "*broadcast*"),  # Its French is *diffusion*.
            ("x", 1, {"en": 1, "fr": 0}, None),  # At most five: "y" is left out.
        ],
    ]


def test_the_report_s_filters_apply_to_them(free_quiz):
    assert _wrong(free_quiz, language="fr") == [
        [("1000", 1, {"fr": 1}, None), ("32", 1, {"fr": 1}, "32")],  # Ties by the response.
        [("diffusion", 1, {"fr": 1}, "*broadcast*"), ("gather", 1, {"fr": 1}, None)]
        + [("reduce", 1, {"fr": 1}, None)],
    ]


def test_a_quiz_answered_by_picks_has_none(hand_quiz):
    assert _wrong(hand_quiz) == [[]] * 5


def test_the_page_shows_them_as_each_language_writes_numbers_with_a_link_to_add_one(
    client, free_quiz
):
    client.force_login(User.objects.create_superuser("root"))
    question = free_quiz.questions.get(position=1)
    type_answers(free_quiz, lang="fr", typed=["10 240", "y"])
    page = client.get(URL.format(lang="fr")).content.decode()
    assert "Réponses fausses les plus fréquentes" in page
    assert f"<span>10{NBSP}240</span>" in page
    assert "3 réponses (en&nbsp;2, fr&nbsp;1)" in page
    admin = reverse("admin:quizzes_question_change", args=[question.pk])
    assert f'href="{admin}"' in page
    english = client.get(URL.format(lang="en")).content.decode()
    assert "<span>10,240</span>" in english
    assert "3 answers (en&nbsp;2, fr&nbsp;1)" in english
    assert "<span>diffusion</span> — 1 answer (fr&nbsp;1)" in english  # None in English.
    assert "matches “32”" in english


def test_the_questions_csv_has_them(client, free_quiz):
    client.force_login(User.objects.create_superuser("root"))
    response = client.get(URL.format(lang="en") + "questions.csv")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    header, first, second = rows
    start = header.index("Wrong answer 1")
    assert header[start : start + 4] == [
        "Wrong answer 1",
        "Wrong answer 1 count",
        "Wrong answer 1 (en)",
        "Wrong answer 1 (fr)",
    ]
    assert first[start : start + 8] == ["32", "3", "2", "1", "1,000", "2", "1", "1"]
    assert second[start : start + 4] == ["gather", "2", "1", "1"]
    assert len(header) == len(first) == len(second)


def _queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
        assert response.status_code == 200
        if response.streaming:
            b"".join(response.streaming_content)
    return len(queries)


@pytest.mark.parametrize("count", [1, 3])
def test_they_cost_one_query_more_whatever_the_questions(client, db, count):
    """The report and its questions' CSV cost what they cost for questions answered by
    picks (test_reports.py), and one query more for all the typed answers' questions."""
    quiz = make_quiz(slug="free-quiz", questions=2 * count)
    for number in range(1, count + 1):
        make_numerical(quiz, 2 * number - 1)
        make_short_answer(quiz, 2 * number)
    for lang, typed in FREE.values():
        type_answers(quiz, lang=lang, typed=typed * count)
    client.force_login(User.objects.create_superuser("root"))
    urls = [URL.format(lang="en"), URL.format(lang="en") + "questions.csv"]
    client.get(urls[0])
    typed = [_queries(client, url) for url in urls]
    kinds = dict(quiz.questions.values_list("pk", "kind"))
    quiz.questions.update(kind="single")
    by_picks = [_queries(client, url) for url in urls]
    assert typed == [by_picks[0] + 1, by_picks[1] + 1]
    assert len(set(kinds.values())) == 2


def test_an_attempt_s_review_shows_its_typed_answers_as_its_language_writes_them(client, free_quiz):
    client.force_login(User.objects.create_superuser("root"))
    attempt = type_answers(free_quiz, lang="fr", typed=["1 000", "Réduction globale"])
    page = client.get(f"/en/reports/quizzes/free-quiz/attempts/{attempt.public_id}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert f"<span>1{NBSP}000</span>" in html and "<span>Réduction globale</span>" in html
