"""A calculated question's report: its answers grouped by the variant each attempt drew, with
each variant's right answer, facility and most frequent wrong answers, by hand.

The question draws workers from {2, 4}, a local batch of 1,024 and 3 accumulation steps: two
variants, whose right answers are 6,144 and 12,288; workers * local_batch, a known mistake,
is 2,048 and 4,096. Six attempts, three on each variant:

    workers  typed (language)                      right  facility
    2        6144 (en), 2048 (en), 2048 (fr)       1 / 3  0.33
    4        12288 (fr), 12288 (en), 7 (en)        2 / 3  0.67
"""

import csv
import io
import uuid

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from quizzes.kinds import calculated
from quizzes.learning.forms import AnswerForm
from quizzes.learning.services import answer_record, attempt_start
from quizzes.models import Attempt, Question, Quiz
from quizzes.reports import selectors as reports
from quizzes.snapshots import drawn
from tests.factories import content_of, make_calculated, make_quiz

URL = "/{lang}/reports/quizzes/calc-quiz/"
NBSP = "\u00a0"
VARIABLES = [
    {"name": "workers", "values": ["2", "4"]},
    {"name": "local_batch", "values": ["1024"]},
    {"name": "steps", "values": ["3"]},
]
TYPED = {  # workers: (language, typed) for each of its attempts.
    2: [("en", "6144"), ("en", "2048"), ("fr", "2048")],
    4: [("fr", "12288"), ("en", "12288"), ("en", "7")],
}


def _values(workers: int, batch: str = "1,024") -> str:
    """A variant's values as the report shows them, each pair on one line."""
    return (
        f"workers{NBSP}={NBSP}{workers}, local{NBSP}batch{NBSP}={NBSP}{batch}, steps{NBSP}={NBSP}3"
    )


def _public_id_drawing(question: Question, workers: int) -> uuid.UUID:
    """A public id whose attempt draws this many workers for `question`."""
    variables, _problems = calculated.parse_variables(question.variables)
    while True:
        public_id = uuid.uuid4()
        seed = calculated.seed_of(public_id, question.pk)
        if calculated.draw(variables, seed)["workers"] == workers:
            return public_id


def _take(quiz: Quiz, *, workers: int, lang: str, typed: list[str]) -> Attempt:
    """An attempt on the variant of `workers` for the first question, typing answer n as
    typed[n - 1] through the real form and services."""
    with translation.override(lang):
        attempt = attempt_start(quiz=quiz, user=None, learner_key=uuid.uuid4().hex)
        first = quiz.questions.order_by("position").first()
        Attempt.objects.filter(pk=attempt.pk).update(public_id=_public_id_drawing(first, workers))
        attempt.refresh_from_db()
        content = content_of(quiz)
        for question, text in zip(content.questions, typed, strict=True):
            shown = drawn(question, attempt)
            posted = QueryDict(mutable=True)
            posted["choice"] = text
            form = AnswerForm(posted, choices=shown.choices, kind=shown.type)
            assert form.is_valid(), form.errors
            answer_record(
                attempt=attempt,
                quiz=content,
                question=shown,
                choices=form.cleaned_data["choices"],
                response=form.cleaned_data["response"],
            )
    return attempt


def _calculated_quiz(questions: int = 1, repeat: int = 1) -> Quiz:
    """The quiz of the docstring's question (`questions` of them, all answered alike), its six
    attempts taken `repeat` times."""
    quiz = make_quiz(slug="calc-quiz", questions=questions)
    for number in range(1, questions + 1):
        make_calculated(quiz, number)
    quiz.questions.update(variables=VARIABLES)
    for _ in range(repeat):
        for workers, attempts in TYPED.items():
            for lang, text in attempts:
                _take(quiz, workers=workers, lang=lang, typed=[text] * questions)
    return quiz


@pytest.fixture
def calc_quiz(db) -> Quiz:
    return _calculated_quiz()


def _variants(quiz: Quiz, **filters) -> list[tuple]:
    (item,) = reports.item_analysis(quiz, reports.ReportFilter(**filters)).questions
    return [
        (
            variant.values,
            variant.right,
            variant.count,
            round(variant.facility, 2),
            [
                (w.response, w.count, dict(w.by_language), w.matched and w.matched.text_en)
                for w in variant.wrong
            ],
        )
        for variant in item.variants
    ]


def test_answers_are_grouped_by_variant_with_its_right_answer_and_facility(calc_quiz):
    assert _variants(calc_quiz) == [
        (
            _values(2),
            "6,144",
            3,
            0.33,
            [("2048", 2, {"en": 1, "fr": 1}, "workers * local_batch")],
        ),
        (
            _values(4),
            "12,288",
            3,
            0.67,
            [("7", 1, {"en": 1, "fr": 0}, None)],
        ),
    ]
    (item,) = reports.item_analysis(calc_quiz, reports.ReportFilter()).questions
    assert item.variants_answered == 2
    # The question's most frequent wrong answers (the CSV's) name their variant.
    assert [(w.shown, w.count) for w in item.wrong_responses] == [
        (
            f"2,048 ({_values(2)})",
            2,
        ),
        (f"7 ({_values(4)})", 1),
    ]


def test_the_report_s_filters_apply_to_the_variants(calc_quiz):
    assert _variants(calc_quiz, language="fr") == [
        (
            _values(2),
            "6,144",
            1,
            0.0,
            [("2048", 1, {"fr": 1}, "workers * local_batch")],
        ),
        (
            _values(4),
            "12,288",
            1,
            1.0,
            [],
        ),
    ]


def test_the_variants_listed_are_those_with_the_most_wrong_answers(db):
    quiz = make_quiz(slug="calc-quiz", questions=1)
    make_calculated(quiz, 1)
    quiz.questions.update(variables=[{"name": "workers", "min": "1", "max": "12"}])
    quiz.questions.get().choices.filter(is_correct=True).update(text_en="workers")
    for workers in range(1, 13):  # The variant of 12 workers answered wrong 12 times, …
        for _ in range(workers):
            _take(quiz, workers=workers, lang="en", typed=["0"])
    _take(quiz, workers=1, lang="en", typed=["1"])  # … that of 1 once wrong and once right.
    (item,) = reports.item_analysis(quiz, reports.ReportFilter(first_only=False)).questions
    assert item.variants_answered == 12
    assert [v.values for v in item.variants] == [
        f"workers{NBSP}={NBSP}{n}" for n in range(12, 2, -1)
    ]
    assert [v.right for v in item.variants] == [str(n) for n in range(12, 2, -1)]
    assert {v.facility for v in item.variants} == {0.0}


def test_the_page_shows_the_variants_as_each_language_writes_numbers(client, calc_quiz):
    client.force_login(User.objects.create_superuser("root"))
    page = client.get(URL.format(lang="fr")).content.decode()
    caption = "Réponses par variante en Q1, les valeurs tirées par chaque tentative"
    assert f"{caption} (2 variantes rencontrées)" in page
    assert f'<th scope="row">{_values(2, f"1{NBSP}024")}</th>' in page
    assert f'<td class="number">6{NBSP}144</td>' in page
    assert f"<span>2{NBSP}048</span> (2 réponses)" in page
    assert f"correspond à «{NBSP}workers * local_batch{NBSP}»" in page
    english = client.get(URL.format(lang="en")).content.decode()
    assert "Answers by variant in Q1, the values each attempt drew (2 variants answered)" in english
    assert '<td class="number">12,288</td>' in english
    assert '<td class="number">0.67</td>' in english
    assert "<span>7</span> (1 answer)" in english


def test_the_questions_csv_names_each_wrong_answer_s_variant(client, calc_quiz):
    client.force_login(User.objects.create_superuser("root"))
    response = client.get(URL.format(lang="en") + "questions.csv")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    header, first = rows
    start = header.index("Wrong answer 1")
    assert first[start : start + 4] == [
        f"2,048 ({_values(2)})",
        "2",
        "1",
        "1",
    ]


def _queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
        assert response.status_code == 200
        if response.streaming:
            b"".join(response.streaming_content)
    return len(queries)


@pytest.mark.parametrize(("questions", "repeat"), [(1, 1), (3, 4)])
def test_the_variants_cost_one_query_more_whatever_the_questions_and_attempts(
    client, db, questions, repeat
):
    """The report and its questions' CSV cost what they cost for questions answered by picks
    (test_reports.py), and one query more for all the calculated questions' variants."""
    quiz = _calculated_quiz(questions, repeat)
    client.force_login(User.objects.create_superuser("root"))
    urls = [URL.format(lang="en"), URL.format(lang="en") + "questions.csv"]
    client.get(urls[0])
    drawn = [_queries(client, url) for url in urls]
    quiz.questions.update(kind="single")
    by_picks = [_queries(client, url) for url in urls]
    assert drawn == [by_picks[0] + 1, by_picks[1] + 1]
