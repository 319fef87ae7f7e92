"""A gaps (cloze) question in the reports: each gap's choices, facility and most frequent
wrong answers with their counts per language, the CSVs, the instructor's review of one
attempt, the seeded attempts, and the queries they cost.

`gaps_quiz` (Q1 of `make_gaps`: (1) a number, 256 right, 32 a known mistake; (2) a choice,
all-reduce right, broadcast « diffusion » and all-gather wrong; (3) a short answer, DDP or
DistributedDataParallel right), answered through the real form by seven learners:

    learner  lang  (1)     (2)          (3)            credit
    A        en    256     all-reduce   DDP            1
    B        en    32      all-reduce   FSDP           1/3
    C        fr    32      diffusion    DDP            1/3
    D        fr    1 000   all-gather   FSDP           0
    E        en    1000    all-reduce   ddp            2/3
    F        en    32      all-reduce   DataParallel   1/3
    G        fr    256     diffusion    FSDP           1/3

Gap (1): 7 answers, 2 right (facility 2/7); wrong: 32, 3 (en 2, fr 1), matches 32; 1000, 2
(en 1, fr 1). Gap (2): all-reduce 4, broadcast 2, all-gather 1 (facility 4/7). Gap (3): DDP
matched 3 times (facility 3/7); wrong: FSDP, 3 (en 1, fr 2); DataParallel, 1 (en 1).
Q1's facility is the mean credit, 3/7, the mean of its gaps' facilities too.
"""

import secrets
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.db import connection
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from quizzes.learning.forms import AnswerForm
from quizzes.learning.services import answer_record, attempt_start
from quizzes.models import Attempt, Quiz
from quizzes.reports import selectors as reports
from tests.factories import content_of, make_gaps, make_multiple, make_quiz
from tests.reports.test_attempt_review import review_url
from tests.reports.test_reports_csv import read_csv

URL = "/{lang}/reports/quizzes/cloze/"
NBSP = "\u00a0"

# Each learner's language and gaps, a choice gap by its choice's English text.
FILLED = {
    "A": ("en", ["256", "all-reduce", "DDP"]),
    "B": ("en", ["32", "all-reduce", "FSDP"]),
    "C": ("fr", ["32", "broadcast", "DDP"]),
    "D": ("fr", ["1 000", "all-gather", "FSDP"]),
    "E": ("en", ["1000", "all-reduce", "ddp"]),
    "F": ("en", ["32", "all-reduce", "DataParallel"]),
    "G": ("fr", ["256", "broadcast", "FSDP"]),
}


def fill(quiz: Quiz, *, lang: str, gaps: list[str]) -> Attempt:
    """An attempt through the real form and services: each gaps question's gaps filled with
    `gaps` (a choice gap by its choice's English text), each other question answered right."""
    with translation.override(lang):
        attempt = attempt_start(quiz=quiz, user=None, learner_key=secrets.token_hex(16))
        content = content_of(quiz)
        for question in content.questions:
            posted = QueryDict(mutable=True)
            if question.kind == "gaps":
                texts = {choice.text.by_language[0][1]: choice.pk for choice in question.choices}
                values = [
                    str(texts[value]) if kind == "single" else value
                    for kind, value in zip(question.gaps, gaps, strict=True)
                ]
            else:
                values = [str(choice.pk) for choice in question.choices if choice.is_correct]
            posted.setlist("choice", values)
            form = AnswerForm(
                posted, choices=question.choices, kind=question.type, question=question
            )
            assert form.is_valid(), form.errors
            answer_record(
                attempt=attempt,
                quiz=content,
                question=question,
                choices=form.cleaned_data["choices"],
                response=form.cleaned_data["response"],
            )
    return Attempt.objects.get(pk=attempt.pk)


@pytest.fixture
def gaps_quiz(db) -> Quiz:
    quiz = make_quiz(slug="cloze", questions=2)
    make_gaps(quiz, 1)
    for lang, gaps in FILLED.values():
        fill(quiz, lang=lang, gaps=gaps)
    return quiz


def _gaps(quiz, **filters) -> list[tuple]:
    (item, _other) = reports.item_analysis(quiz, reports.ReportFilter(**filters)).questions
    return [
        (
            gap.number,
            gap.kind,
            gap.count,
            round(gap.facility, 5),
            [(choice.choice.text_en, choice.count) for choice in gap.choices],
            [
                (w.response, w.count, dict(w.by_language), w.matched and w.matched.text_en)
                for w in gap.wrong
            ],
        )
        for gap in item.gaps
    ]


def test_each_gap_with_its_choices_facility_and_wrong_answers_per_language(gaps_quiz):
    assert _gaps(gaps_quiz) == [
        (
            1,
            "numerical",
            7,
            round(2 / 7, 5),
            [("256", 2), ("32", 3)],
            [("32", 3, {"en": 2, "fr": 1}, "32"), ("1000", 2, {"en": 1, "fr": 1}, None)],
        ),
        (
            2,
            "single",
            7,
            round(4 / 7, 5),
            [("all-reduce", 4), ("broadcast", 2), ("all-gather", 1)],
            [],  # A choice gap's mistakes are its choices' picks.
        ),
        (
            3,
            "short_answer",
            7,
            round(3 / 7, 5),
            [("DDP", 3), ("DistributedDataParallel", 0)],
            [("FSDP", 3, {"en": 1, "fr": 2}, None), ("DataParallel", 1, {"en": 1, "fr": 0}, None)],
        ),
    ]


def test_the_question_s_statistics_count_each_gap_s_share(gaps_quiz):
    item = reports.item_analysis(gaps_quiz, reports.ReportFilter()).questions[0]
    assert item.overall.n == 7
    assert item.overall.facility == pytest.approx(3 / 7, abs=1e-4)  # Credits of 5 places.
    assert item.overall.facility == pytest.approx(sum(g.facility for g in item.gaps) / 3, abs=1e-4)
    assert [(c.choice.text_en, c.count) for c in item.choices][:2] == [("256", 2), ("32", 3)]


def test_the_report_s_filters_apply_to_each_gap(gaps_quiz):
    first, _choice, third = _gaps(gaps_quiz, language="fr")
    assert first[2:4] == (3, round(1 / 3, 5))
    assert first[5] == [("1000", 1, {"fr": 1}, None), ("32", 1, {"fr": 1}, "32")]
    assert third[5] == [("FSDP", 2, {"fr": 2}, None)]


def test_a_wrong_choice_is_flagged_against_its_own_gap_s_right_answer(gaps_quiz):
    """32 (3 answers) beats 256 (2) in gap 1, though all-reduce (4) is picked more in gap 2;
    every wrong choice was given, so none is flagged as not distracting."""
    flags = reports.item_analysis(gaps_quiz, reports.ReportFilter()).questions[0].flags
    often = [flag for flag in flags if "more often than the right answer" in flag]
    assert often == [
        "The wrong choice “32” is picked more often than the right answer: "
        "the question or its answer may be misleading."
    ]
    assert not [flag for flag in flags if flag.startswith("Nobody picked")]


def test_the_page_shows_each_gap_as_each_language_writes_numbers(instructor_client, gaps_quiz):
    page = instructor_client.get(URL.format(lang="fr")).content.decode()
    assert "[[" not in page
    assert '<span class="gap-blank" data-gap="1">(1)</span>' in page  # The heading's blanks.
    assert "Trou (1)\u00a0: un nombre" in page
    assert "Trou (2)\u00a0: un choix" in page
    assert "Trou (3)\u00a0: une réponse courte" in page
    assert "7 réponses, facilité 0,29" in page
    assert f"<span>1{NBSP}000</span> — 2 réponses (en&nbsp;1, fr&nbsp;1)" in page
    assert "<span>FSDP</span> — 3 réponses (en&nbsp;1, fr&nbsp;2)" in page
    assert "correspond à «\u00a032\u00a0»" in page
    assert 'id="question-1-choices"' not in page  # No table of every gap's choices at once.
    admin = reverse("admin:quizzes_question_change", args=[gaps_quiz.questions.get(position=1).pk])
    assert f'href="{admin}"' in page
    english = instructor_client.get(URL.format(lang="en")).content.decode()
    assert "<span>1,000</span> — 2 answers (en&nbsp;1, fr&nbsp;1)" in english
    assert "<span>DataParallel</span> — 1 answer (en&nbsp;1)" in english  # No "fr 0".
    assert "Gap (2): a choice" in english and "7 answers, facility 0.57" in english


def test_the_questions_csv_names_each_gap_s_choices_and_wrong_answers(instructor_client, gaps_quiz):
    rows = read_csv(instructor_client.get(URL.format(lang="en") + "questions.csv"))
    header, gaps, other = rows
    assert len(header) == len(gaps) == len(other)
    start = header.index("Choice 1")
    assert gaps[start : start + 4] == ["(1) 256", "yes", "2", "0.286"]
    assert gaps[start + 8 : start + 10] == ["(2) all-reduce", "yes"]
    wrong = header.index("Wrong answer 1")
    assert gaps[wrong : wrong + 8] == ["(1) 32", "3", "2", "1", "(1) 1,000", "2", "1", "1"]
    assert "(3) FSDP" in gaps and "(3) DataParallel" in gaps
    assert gaps[header.index("Facility")] == "0.429"


def test_the_attempts_csv_writes_each_gap_s_answer_in_the_attempt_s_language(
    instructor_client, gaps_quiz
):
    rows = read_csv(instructor_client.get(URL.format(lang="en") + "attempts.csv"))
    header, body = rows[0], rows[1:]
    column = header.index("Question 1 choice")
    by_language = {(row[header.index("Language")], row[column]): row for row in body}
    english = by_language[("en", "(1) 32 | (2) all-reduce | (3) FSDP")]
    assert english[column + 1 : column + 3] == ["partly right", "0.33333"]
    assert ("fr", f"(1) 1{NBSP}000 | (2) all-gather | (3) FSDP") in by_language
    assert ("fr", "(1) 32 | (2) diffusion | (3) DDP") in by_language
    assert by_language[("en", "(1) 256 | (2) all-reduce | (3) DDP")][column + 1] == "right"


def test_the_attempts_csv_of_a_quiz_with_multiple_choice_writes_each_answer_once(
    instructor_client, db
):
    """Its answers of several picks are joined pick by pick: a gaps answer stays one cell."""
    quiz = make_quiz(slug="cloze", questions=2)
    make_gaps(quiz, 1)
    make_multiple(quiz, 2)
    fill(quiz, lang="en", gaps=["256", "all-reduce", "DDP"])
    rows = read_csv(instructor_client.get(URL.format(lang="en") + "attempts.csv"))
    header, row = rows
    assert row[header.index("Question 1 choice")] == "(1) 256 | (2) all-reduce | (3) DDP"
    assert row[header.index("Question 2 choice")] == "Q2 choice 1 | Q2 choice 2"


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_review_shows_each_gap_s_answer_and_its_right_one(instructor_client, gaps_quiz, lang):
    attempt = fill(gaps_quiz, lang="fr", gaps=["1 000", "broadcast", "ddp"])
    html = instructor_client.get(review_url(attempt, lang)).content.decode()
    right, wrong = ("Right", "Wrong") if lang == "en" else ("Juste", "Faux")
    the_right = "The right answer:" if lang == "en" else "La bonne réponse\u00a0:"
    assert '<span class="gap-blank" data-gap="2">(2)</span>' in html  # The prompt's blanks.
    gaps = html.split('<ul class="review-choices review-gaps">')[1].split("</ul>")[0]
    assert gaps.count('<li class="picked wrong">') == 2
    assert gaps.count('<li class="picked correct">') == 1
    assert f'<span lang="fr">1{NBSP}000</span>' in html  # As the attempt's language writes it.
    assert f'{the_right} <strong lang="fr">256</strong>' in html
    assert '<span lang="fr">diffusion</span>' in html  # The choice in the attempt's language.
    assert f'{the_right} <strong lang="fr">all-reduce</strong>' in html
    assert '<span lang="fr">ddp</span>' in html and f"✓</span> {right}</strong>" in html
    assert f"✗</span> {wrong}</span>" in html
    first = html.split('id="question-1"')[1].split('id="question-2"')[0]
    assert first.count('<li class="picked') == 3  # Its gaps, not every gap's choices.


def _queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
        assert response.status_code == 200
        if response.streaming:
            b"".join(response.streaming_content)
    return len(queries)


@pytest.mark.parametrize(("questions", "attempts"), [(1, 2), (3, 6)])
def test_they_cost_one_query_more_whatever_the_questions_and_attempts(
    client, db, questions, attempts
):
    """The report and its CSVs cost what they cost for questions answered by picks
    (test_reports.py), and one query more for all the gaps questions' gaps; the review of an
    attempt the same."""
    quiz = make_quiz(slug="cloze", questions=questions + 1)
    for number in range(1, questions + 1):
        make_gaps(quiz, number)
    for index in range(attempts):
        lang, gaps = list(FILLED.values())[index % len(FILLED)]
        attempt = fill(quiz, lang=lang, gaps=gaps)
    client.force_login(User.objects.create_superuser("root"))
    cache.clear()
    report = URL.format(lang="en")
    urls = [report, report + "questions.csv", report + "attempts.csv", review_url(attempt)]
    client.get(review_url(attempt))  # The kept content, read once per process.
    gapped = [_queries(client, url) for url in urls]
    quiz.questions.update(kind="single")
    cache.clear()
    client.get(review_url(attempt))
    by_picks = [_queries(client, url) for url in urls]
    assert gapped == [by_picks[0] + 1, by_picks[1] + 1, by_picks[2], by_picks[3]]


def test_seeded_attempts_fill_each_gap_rightly_or_wrongly_and_are_graded_by_the_kind(db):
    quiz = make_quiz(slug="cloze", questions=4)
    question = make_gaps(quiz, 2)
    call_command("seedattempts", quiz.slug, count=200, seed=7, stdout=StringIO())
    content = next(kept for kept in content_of(quiz).questions if kept.pk == question.pk)
    answers = list(question.answers.select_related("attempt").prefetch_related("picks"))
    assert answers
    for answer in answers:
        picked = frozenset(pick.choice_id for pick in answer.picks.all())
        with translation.override(answer.attempt.language):
            assert question.type.accepts(content, picked, answer.response)
        assert float(answer.credit) == pytest.approx(
            question.type.grade(content, picked, answer.response), abs=1e-5
        )
        assert answer.choice_id == (next(iter(picked)) if len(picked) == 1 else None)
    credits = {answer.credit for answer in answers}
    assert len(credits) == 4  # 0, 1/3, 2/3 and 1: credit per gap.
    for attempt in Attempt.objects.filter(quiz=quiz, completed_at__isnull=False)[:20]:
        assert attempt.score == sum(a.credit for a in attempt.answers.all())
    gaps = reports.item_analysis(quiz, reports.ReportFilter(first_only=False)).questions[1].gaps
    assert all(0 < gap.facility < 1 for gap in gaps)
    number, _choice, text = gaps
    assert [w.matched.text_en for w in number.wrong if w.matched] == ["32"]  # A known mistake,
    assert len(number.wrong) >= 3  # and mistakes of the learners' own.
    assert len(text.wrong) >= 2
    assert all(choice.count for choice in _choice.choices)  # Every choice, some more.


def test_seeding_a_gap_without_a_right_choice_is_refused_with_a_message(db):
    quiz = make_quiz(slug="cloze", questions=2)
    make_gaps(quiz, 1).choices.filter(gap=3).update(is_correct=False)
    with pytest.raises(CommandError, match="Every gap of a gaps question needs a right choice."):
        call_command("seedattempts", quiz.slug, count=5, seed=7, stdout=StringIO())
    assert not Attempt.objects.exists()
