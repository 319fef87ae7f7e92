"""Score reports: the statistics, filters, pages and permissions.

The data set and the figures computed by hand are in report_data.py.
"""

import secrets
from datetime import datetime

import pytest
from django.contrib.auth.models import Permission, User
from django.core.management import call_command
from django.db import connection
from django.utils import translation

from quizzes.learning.services import attempt_start, attempts_claim
from quizzes.models import Attempt, Quiz
from quizzes.reports import selectors as reports
from tests.factories import make_quiz
from tests.reports.report_data import FIRST_DAY, URL, instructor, take


def test_summary_on_first_attempts(hand_quiz):
    items = reports.item_analysis(hand_quiz, reports.ReportFilter())
    summary = reports.quiz_summary(hand_quiz, reports.ReportFilter(), items=items)
    assert (summary.started, summary.completed) == (7, 6)
    assert summary.completion_rate == pytest.approx(6 / 7)
    assert summary.mean == pytest.approx(60)
    assert summary.median == pytest.approx(60)
    assert summary.std_dev == pytest.approx(21.9089, abs=1e-4)
    assert summary.pass_rate == pytest.approx(2 / 6)
    assert summary.alpha == pytest.approx(5 / 24)
    # In bands of 10 %: 20 % once, 60 % three times, 80 % twice.
    assert [(b.low, b.high, b.count) for b in summary.histogram] == [
        (0, 10, 0),
        (10, 20, 0),
        (20, 30, 1),
        (30, 40, 0),
        (40, 50, 0),
        (50, 60, 0),
        (60, 70, 3),
        (70, 80, 0),
        (80, 90, 2),
        (90, 100, 0),
    ]


def test_item_analysis_by_hand(hand_quiz):
    items = reports.item_analysis(hand_quiz, reports.ReportFilter()).questions
    expected = [
        (4 / 6, 31.6228, 40.0),
        (1 / 6, -34.9215, -71.4286),
        (4 / 6, 31.6228, 40.0),
        (1.0, None, None),
        (3 / 6, 21.8218, 33.3333),
    ]
    for item, (facility, discrimination, efficiency) in zip(items, expected, strict=True):
        assert item.overall.n == 6
        assert item.overall.facility == pytest.approx(facility)
        if discrimination is None:
            assert item.overall.discrimination is None and item.overall.efficiency is None
        else:
            assert item.overall.discrimination == pytest.approx(discrimination, abs=1e-4)
            assert item.overall.efficiency == pytest.approx(efficiency, abs=1e-4)
    counts = [[choice.count for choice in item.choices] for item in items]
    assert counts == [[4, 1, 1], [1, 4, 1], [4, 2, 0], [6, 0, 0], [3, 2, 1]]
    assert items[1].choices[1].share == pytest.approx(4 / 6)


def test_item_analysis_by_language(hand_quiz):
    items = reports.item_analysis(hand_quiz, reports.ReportFilter()).questions
    # Q3 in English: A, B, D all right; in French: C and F wrong, E right.
    assert items[2].by_language["en"].facility == 1.0
    assert items[2].by_language["fr"].facility == pytest.approx(1 / 3)
    assert items[0].by_language["en"].facility == pytest.approx(2 / 3)
    assert items[0].by_language["fr"].facility == pytest.approx(2 / 3)
    assert items[0].by_language["en"].n == 3


@pytest.fixture
def english():
    """Flags are text in the active language; a request before may have left French on."""
    with translation.override("en"):
        yield


def test_flags_say_why(hand_quiz, english):
    flags = [
        item.flags for item in reports.item_analysis(hand_quiz, reports.ReportFilter()).questions
    ]
    assert flags[0] == []
    assert flags[1] == [
        "Too hard: fewer than 20% of learners answer it right.",
        "Negative discrimination: learners who do well on the rest of the quiz get this one "
        "wrong more often. The question or its answer may be wrong or misleading.",
        "Low discriminative efficiency (below 15%): it separates learners far less than its "
        "facility would allow. The question may be wrong or misleading.",
        "Facility differs by 0.33 between languages (English 0.33, French 0.00): "
        "check the translation.",
        "The wrong choice “Q2 choice 2” is picked more often than the right answer: "
        "the question or its answer may be misleading.",
    ]
    assert flags[2] == [
        "Facility differs by 0.67 between languages (English 1.00, French 0.33): "
        "check the translation.",
        "Nobody picked the wrong choice “Q3 choice 3”: it does not distract.",
    ]
    assert flags[3] == [
        "Too easy: more than 90% of learners answer it right.",
        "Nobody picked the wrong choice “Q4 choice 2”: it does not distract.",
        "Nobody picked the wrong choice “Q4 choice 3”: it does not distract.",
    ]
    assert flags[4] == [
        "Facility differs by 0.33 between languages (French 0.67, English 0.33): "
        "check the translation.",
    ]


def test_the_flags_sentences_write_numbers_and_languages_as_french_does(
    instructor_client, hand_quiz
):
    html = instructor_client.get("/fr/reports/quizzes/dp-quiz/").content.decode()
    assert "La facilité diffère de 0,67 entre les langues (anglais 1,00, français 0,33)" in html
    assert "0.67" not in html and "Anglais 1" not in html


def test_weak_positive_discrimination_is_flagged(english):
    # x 1 1 0 0 with rest scores 2 1 2 1: covariance 0, so D = 0 and DE = 0.
    stats = reports.item_stats([(1, 2, 1), (1, 1, 1), (0, 2, 1), (0, 1, 1)])
    assert stats.discrimination == 0 and stats.efficiency == 0
    question = reports.QuestionStats(question=None, overall=stats, by_language={}, choices=[])
    assert reports.question_flags(question, {}) == [
        "Weak discrimination (below 20): it barely separates stronger from weaker "
        "learners. The question may be wrong or misleading.",
        "Low discriminative efficiency (below 15%): it separates learners far less than its "
        "facility would allow. The question may be wrong or misleading.",
    ]


def test_all_attempts_include_retries(hand_quiz):
    everything = reports.ReportFilter(first_only=False)
    summary = reports.quiz_summary(hand_quiz, everything)
    assert (summary.started, summary.completed) == (9, 7)
    items = reports.item_analysis(hand_quiz, everything).questions
    assert items[0].overall.n == 7
    assert items[0].overall.facility == pytest.approx(5 / 7)


def test_language_and_date_filters(hand_quiz):
    french = reports.item_analysis(hand_quiz, reports.ReportFilter(language="fr"))
    assert [code for code, _name in french.languages] == ["fr"]
    assert french.questions[0].overall.n == 3
    assert french.questions[2].overall.facility == pytest.approx(1 / 3)
    assert reports.quiz_summary(hand_quiz, reports.ReportFilter(language="fr")).completed == 3

    later = datetime(2026, 3, 5).date()
    retries = reports.ReportFilter(date_from=later, first_only=False)
    assert reports.quiz_summary(hand_quiz, retries).completed == 1
    # A retry inside the dates is still not a first attempt.
    assert reports.quiz_summary(hand_quiz, reports.ReportFilter(date_from=later)).started == 0
    first_day = reports.ReportFilter(date_to=FIRST_DAY.date(), first_only=False)
    assert reports.quiz_summary(hand_quiz, first_day).started == 7


def test_report_page_shows_every_section(instructor_client, hand_quiz):
    response = instructor_client.get(URL)
    html = response.content.decode()
    assert response.status_code == 200
    assert "Completion rate" in html and "86%" in html
    assert "0.21" in html  # alpha
    assert 'aria-hidden="true" focusable="false"' in html and "<svg" in html
    assert '<caption id="histogram-caption">Score distribution</caption>' in html
    assert "Nobody picked the wrong choice “Q3 choice 3”" in html
    assert "31.6" in html and "-34.9" in html
    assert "Ana Alves" in html and "ben" in html and "Anonymous learners" in html
    assert "gina" not in html  # no completed attempt


def test_report_page_filters_follow_the_query(instructor_client, hand_quiz):
    html = instructor_client.get(URL, {"language": "fr"}).content.decode()
    assert "Ana Alves" not in html and "=SUM(A1)" in html
    assert ">French</th>" in html and ">English</th>" not in html
    html = instructor_client.get(URL, {"attempts": "all", "sort": "-attempts"}).content.decode()
    assert html.index("Ana Alves") < html.index("Dee Dupont")
    assert 'aria-sort="descending"' in html


def test_learners_sort_by_query_parameter(hand_quiz):
    def names(sort):
        rows = reports.learners(hand_quiz, reports.ReportFilter(first_only=False), sort=sort)
        return [user.username for user in rows]

    assert names("name") == ["cy", "ana", "ben", "dee"]  # "=sum(a1)" sorts first
    assert names("-best") == ["ana", "dee", "ben", "cy"]
    assert names("last_score") == ["cy", "ben", "dee", "ana"]
    rows = {
        u.username: u for u in reports.learners(hand_quiz, reports.ReportFilter(first_only=False))
    }
    assert (rows["ana"].attempt_count, rows["ana"].best, rows["ana"].last_score) == (2, 100, 100)
    overview = reports.learners_overview(hand_quiz, reports.ReportFilter())
    assert overview.signed_in == 4
    anonymous = overview.anonymous
    assert (anonymous.attempts, anonymous.best, anonymous.last_score) == (2, 80, 60)


@pytest.mark.parametrize(
    "query",
    [
        {"date_from": "2026-13-01"},
        {"date_from": "2026-03-10", "date_to": "2026-03-01"},
        {"language": "de"},
        {"attempts": "some"},
        {"sort": "password"},
        {"page": "x"},
    ],
)
def test_bad_filters_get_a_400_that_says_why(instructor_client, hand_quiz, query):
    response = instructor_client.get(URL, query)
    assert response.status_code == 400
    assert b'class="error"' in response.content
    assert b"Score distribution" not in response.content
    assert instructor_client.get(URL + "attempts.csv", query).status_code == 400


def test_french_report_page(instructor_client, hand_quiz):
    response = instructor_client.get("/fr/reports/quizzes/dp-quiz/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "Taux de réussite" in html
    assert "31,6" in html


def test_index_counts_what_the_quiz_report_counts_by_default(instructor_client, hand_quiz):
    attempt_start(quiz=hand_quiz, user=None, learner_key="editor", kind="preview")
    response = instructor_client.get("/en/reports/")
    html = response.content.decode()
    assert response.status_code == 200
    assert 'href="/en/reports/quizzes/dp-quiz/"' in html
    summary = reports.quiz_summary(hand_quiz, reports.ReportFilter())
    (overview,) = reports.quizzes_overview()
    assert (overview.started, overview.completed) == (summary.started, summary.completed)
    assert round(overview.mean, 1) == round(summary.mean, 1)
    # The hand data's first attempts: a repeat, a practice and the preview are left out.
    assert Attempt.objects.filter(quiz=hand_quiz).count() > summary.started
    assert f">{summary.started}<" in html and f"{round(summary.mean, 1)}%" in html
    assert "first attempt" in html


def test_an_attempt_never_answered_is_not_counted_as_started(instructor_client, hand_quiz):
    def started() -> tuple[int, int]:
        (overview,) = reports.quizzes_overview()
        return reports.quiz_summary(hand_quiz, reports.ReportFilter()).started, overview.started

    assert started() == (7, 7)
    take(hand_quiz, user=None, lang="en", picks=[], when=FIRST_DAY)
    assert started() == (7, 7)
    take(hand_quiz, user=None, lang="en", picks=[1], when=FIRST_DAY)
    assert started() == (8, 8)
    for path in ["/en/reports/", URL]:
        html = instructor_client.get(path).content.decode()
        assert "Attempts started (at least one answer)" in html and ">8<" in html


@pytest.mark.parametrize("path", ["/en/reports/", URL, URL + "attempts.csv", URL + "questions.csv"])
def test_anonymous_goes_to_sign_in(client, hand_quiz, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/en/accounts/login/?next=")


@pytest.mark.parametrize("path", ["/en/reports/", URL, URL + "attempts.csv", URL + "questions.csv"])
def test_learner_and_editor_get_403(client, hand_quiz, path):
    client.force_login(User.objects.create_user("learner"))
    response = client.get(path)
    assert response.status_code == 403
    assert "Your account does not give you access to this page." in response.content.decode()
    editor = User.objects.create_user("editor", is_staff=True)
    editor.user_permissions.add(
        *Permission.objects.filter(
            codename__in=["change_quiz", "add_question", "change_question", "change_choice"]
        )
    )
    client.force_login(editor)
    assert client.get(path).status_code == 403


@pytest.mark.parametrize("path", ["/en/reports/", URL, URL + "attempts.csv", URL + "questions.csv"])
def test_instructor_and_superuser_get_reports(client, hand_quiz, path):
    client.force_login(instructor())
    assert client.get(path).status_code == 200
    client.force_login(User.objects.create_superuser("root"))
    assert client.get(path).status_code == 200


def test_header_links_to_reports_only_with_the_permission(client, hand_quiz):
    client.force_login(User.objects.create_user("learner"))
    assert 'href="/en/reports/"' not in client.get("/en/").content.decode()
    client.force_login(instructor())
    assert 'href="/en/reports/"' in client.get("/en/").content.decode()


def test_unknown_quiz_is_404(instructor_client):
    assert instructor_client.get("/en/reports/quizzes/nope/").status_code == 404


def _seeded(count: int) -> Quiz:
    quiz = make_quiz(questions=8)
    call_command("seedattempts", quiz.slug, count=count, seed=7)
    return quiz


@pytest.mark.parametrize("count", [10, 200])
def test_report_queries_do_not_grow_with_attempts(client, db, count, django_assert_num_queries):
    quiz = _seeded(count)
    assert Attempt.objects.filter(completed_at__isnull=False).count() == count
    client.force_login(User.objects.create_superuser("root"))
    url = f"/en/reports/quizzes/{quiz.slug}/"
    # session, user, quiz, questions, choices, picks, scores, learner totals,
    # learners page, anonymous last score; on PostgreSQL the rollups' compaction first
    page = 10 + (connection.vendor == "postgresql")
    with django_assert_num_queries(page):
        assert client.get(url, {"attempts": "all"}).status_code == 200
    with django_assert_num_queries(page):
        assert client.get(url).status_code == 200
    with django_assert_num_queries(6):
        response = client.get(url + "attempts.csv", {"attempts": "all"})
        rows = b"".join(response.streaming_content).decode("utf-8-sig").splitlines()
    assert len(rows) == count + 1
    with django_assert_num_queries(6):
        response = client.get(url + "questions.csv")
        assert len(b"".join(response.streaming_content).splitlines()) == 9
    with django_assert_num_queries(3):
        assert client.get("/en/reports/").status_code == 200


def test_seeded_bad_question_discriminates_negatively(db):
    quiz = _seeded(400)
    items = reports.item_analysis(quiz, reports.ReportFilter(first_only=False)).questions
    assert items[4].overall.discrimination < 0
    assert all(item.overall.discrimination > 0 for i, item in enumerate(items) if i != 4)
    assert Attempt.objects.filter(completed_at=None).count() == 40
    assert set(Attempt.objects.values_list("language", flat=True)) == {"en", "fr"}
    assert (
        Attempt.objects.filter(user=None).exists() and Attempt.objects.exclude(user=None).exists()
    )


def _recomputed_first_flags() -> dict[int, bool]:
    """Attempt.is_first from the attempts' dates: no earlier one of the learner at the quiz."""
    rows = Attempt.objects.values_list("pk", "quiz_id", "user_id", "learner_key", "started_at")
    earliest: dict[tuple, object] = {}
    for _pk, quiz, user, key, started in rows:
        learner = (quiz, user or key)
        earliest[learner] = min(started, earliest.get(learner, started))
    return {pk: started == earliest[quiz, user or key] for pk, quiz, user, key, started in rows}


def test_attempt_start_marks_the_learners_first_attempt_at_each_quiz(db):
    quiz, other = make_quiz(), make_quiz(slug="other-quiz")
    ada = User.objects.create_user("ada")
    key, other_key = secrets.token_hex(16), secrets.token_hex(16)

    def first(quiz, *, user=None, key="") -> bool:
        """Start over, so that each call makes an attempt."""
        return attempt_start(quiz=quiz, user=user, learner_key=key, start_over=True).is_first

    assert first(quiz, user=ada, key=other_key)
    assert not first(quiz, user=ada)
    assert first(other, user=ada)
    assert first(quiz, key=key)
    assert not first(quiz, key=key)
    assert first(quiz, key=other_key)
    flags = dict(Attempt.objects.values_list("pk", "is_first"))
    assert _recomputed_first_flags() == flags


def test_claimed_anonymous_attempts_make_the_accounts_earliest_first(hand_quiz):
    ada = User.objects.get(username="ana")
    key = secrets.token_hex(16)
    anonymous = attempt_start(quiz=hand_quiz, user=None, learner_key=key)
    Attempt.objects.filter(pk=anonymous.pk).update(started_at=FIRST_DAY.replace(day=1, hour=1))
    assert anonymous.is_first
    assert attempts_claim(learner_key=key, user=ada) == 1
    firsts = Attempt.objects.filter(user=ada, is_first=True)
    assert list(firsts.values_list("pk", flat=True)) == [anonymous.pk]
    # Ana's first attempt is now the unfinished one: her 3/5 leaves the first attempts.
    first_only = reports.ReportFilter()
    assert "ana" not in {row.username for row in reports.learners(hand_quiz, first_only)}
    assert reports.quiz_summary(hand_quiz, first_only).completed == 5
    flags = dict(Attempt.objects.values_list("pk", "is_first"))
    assert _recomputed_first_flags() == flags


def test_seedattempts_marks_each_learners_earliest_attempt_first(db):
    _seeded(200)
    flags = dict(Attempt.objects.values_list("pk", "is_first"))
    assert sum(flags.values()) < len(flags)  # retries are not first
    assert _recomputed_first_flags() == flags
