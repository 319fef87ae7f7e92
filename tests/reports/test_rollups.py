"""The rollups PostgreSQL's triggers keep give every figure of a report as scanning the
attempts does, under every filter, after answers, completions, regrades and deletions."""

import uuid
from contextlib import contextmanager
from dataclasses import asdict
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from quizzes.models import Answer, AnswerChoice, Attempt, Quiz, attempt_finished
from quizzes.reports import background, rollups
from quizzes.reports import selectors as reports

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="The rollups are PostgreSQL's (triggers)."
)


def figures(quiz, report_filter):
    items = reports.item_analysis(quiz, report_filter)
    return {
        "summary": reports.quiz_summary(quiz, report_filter, items=items),
        "items": [
            (
                stats.question.pk,
                stats.overall,
                stats.by_language,
                [(c.choice.pk, c.count, c.share) for c in stats.choices],
                stats.flags,
                [asdict(w) for w in stats.wrong_responses],
                [asdict(gap) for gap in stats.gaps],
                [asdict(variant) for variant in stats.variants],
                stats.variants_answered,
            )
            for stats in items.questions
        ],
        "overview": reports.learners_overview(quiz, report_filter),
        "learners": {
            sort: [
                (u.pk, u.username, u.attempt_count, u.best, u.last_score, u.last_date)
                for u in reports.learners(quiz, report_filter, sort=sort)
            ]
            for sort in ("-last_date", "name", "-attempts", "best", "-last_score")
        },
    }


def both_ways(quiz, report_filter, settings):
    settings.REPORT_ROLLUPS = True
    assert reports._rollup(quiz, report_filter) is not None
    kept = figures(quiz, report_filter)
    settings.REPORT_ROLLUPS = False
    scanned = figures(quiz, report_filter)
    settings.REPORT_ROLLUPS = True
    return kept, scanned


@pytest.mark.django_db
def test_the_rollups_give_the_figures_of_the_scan(settings):
    call_command("loaddemo", verbosity=0)
    call_command("seedattempts", "data-parallelism-quiz", count=120, seed=7, verbosity=0)
    quiz = Quiz.objects.get(slug="data-parallelism-quiz")
    attempts = list(Attempt.objects.filter(quiz=quiz).order_by("pk"))
    # A regrade, a claim, a deleted attempt, a finished one reopened, answers and picks
    # taken away, a pick changed.
    Answer.objects.filter(attempt__in=attempts[::5]).update(credit=1, is_correct=True)
    Attempt.objects.filter(pk__in=[a.pk for a in attempts[1::7]]).update(score=3)
    Attempt.objects.filter(pk=attempts[2].pk).update(completed_at=None, score=None)
    Attempt.objects.filter(pk=attempts[3].pk).update(language="fr", is_first=False)
    # Practice and single-question attempts, which a report counts with practice only.
    Attempt.objects.filter(pk__in=[a.pk for a in attempts[9::11]]).update(kind="practice")
    Attempt.objects.filter(pk__in=[a.pk for a in attempts[10::11]]).update(kind="question")
    attempts[4].delete()
    AnswerChoice.objects.filter(answer__in=list(attempts[6].answers.all())).delete()
    Answer.objects.filter(attempt=attempts[6]).delete()
    several = AnswerChoice.objects.filter(answer__choice=None, answer__attempt__in=attempts[8:40])
    AnswerChoice.objects.filter(pk__in=list(several.values_list("pk", flat=True)[:5])).delete()
    moved = several.first()
    AnswerChoice.objects.filter(pk=moved.pk).update(
        choice=moved.choice.question.choices.exclude(picks__answer=moved.answer).first()
    )
    today = timezone.localdate()
    filters = [
        reports.ReportFilter(),
        reports.ReportFilter(first_only=False),
        reports.ReportFilter(language="fr"),
        reports.ReportFilter(first_only=False, with_practice=True, language="en"),
        reports.ReportFilter(date_from=today - timedelta(days=40)),
        reports.ReportFilter(date_from=today - timedelta(days=60), date_to=today - timedelta(30)),
        reports.ReportFilter(first_only=False, date_to=today - timedelta(days=20)),
    ]
    for report_filter in filters:
        kept, scanned = both_ways(quiz, report_filter, settings)
        assert kept == scanned, report_filter
    # The changes are deltas still; folded, the figures stay the same, and so does every
    # count: a rebuild from the attempts gives the same.
    assert deltas() > 0
    assert rollups.compact() > 0 and deltas() == 0
    for report_filter in filters:
        kept, scanned = both_ways(quiz, report_filter, settings)
        assert kept == scanned, report_filter
    assert_as_rebuilt()
    first = figures(quiz, filters[0])
    assert first["summary"].completed > 50
    assert any(item[6] for item in first["items"]) and any(item[7] for item in first["items"])
    assert figures(quiz, filters[-2])["summary"].completed > 5


@pytest.mark.django_db
def test_a_report_of_a_class_or_in_another_zone_scans_the_attempts(settings):
    quiz = Quiz.objects.create(slug="q", title="Q")
    assert reports._rollup(quiz, reports.ReportFilter(klass=1)) is None
    assert reports._rollup(quiz, reports.ReportFilter(taught_by=1)) is None
    with timezone.override("Europe/Paris"):
        assert reports._rollup(quiz, reports.ReportFilter()) is None


def deltas() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT (SELECT count(*) FROM report_attempt_delta) "
            "+ (SELECT count(*) FROM report_answer_delta)"
        )
        return cursor.fetchone()[0]


def assert_as_rebuilt():
    """The counts the triggers kept are those a rebuild counts from the attempts."""
    kept = rollups.folded(connection)
    rollups.rebuild(connection)
    assert rollups.folded(connection) == kept


@pytest.mark.django_db
def test_the_learners_of_all_attempts_come_from_their_rollup(settings):
    call_command("loaddemo", verbosity=0)
    call_command("seedattempts", "data-parallelism-quiz", count=60, seed=3, verbosity=0)
    quiz = Quiz.objects.get(slug="data-parallelism-quiz")
    all_attempts = reports.ReportFilter(first_only=False)
    assert reports._learner_rollup(quiz, all_attempts) is not None
    for report_filter in (
        reports.ReportFilter(),
        reports.ReportFilter(first_only=False, date_from=timezone.localdate()),
    ):
        assert reports._learner_rollup(quiz, report_filter) is None
    # A learner's second attempt, a practice one, one in French, one reopened, one deleted.
    signed_in = list(Attempt.objects.filter(quiz=quiz).exclude(user=None).order_by("pk"))
    learner = signed_in[0].user
    for attempt in signed_in[1:4]:
        attempt.pk, attempt.public_id, attempt.is_first = None, uuid.uuid4(), False
        attempt.user = learner
        attempt.save()
    Attempt.objects.filter(pk=signed_in[4].pk).update(kind="practice")
    Attempt.objects.filter(pk=signed_in[5].pk).update(language="fr")
    Attempt.objects.filter(pk=signed_in[6].pk).update(completed_at=None)
    signed_in[7].delete()
    for report_filter in (
        all_attempts,
        reports.ReportFilter(first_only=False, with_practice=True),
        reports.ReportFilter(first_only=False, language="fr"),
    ):
        kept, scanned = both_ways(quiz, report_filter, settings)
        assert kept == scanned, report_filter
    rows = {u.pk: u for u in reports.learners(quiz, all_attempts)}
    finished = Attempt.objects.filter(quiz=quiz, user=learner, kind="quiz").exclude(
        completed_at=None
    )
    assert rows[learner.pk].attempt_count == finished.count() >= 4
    page = reports.learners(quiz, all_attempts)[1:3]
    assert [u.pk for u in page] == [u.pk for u in list(reports.learners(quiz, all_attempts))[1:3]]
    assert_as_rebuilt()


@pytest.mark.django_db
def test_attempts_submitted_overdue_in_bulk_are_counted(settings):
    """Pages that read an assignment's attempts submit the overdue ones in one UPDATE (the
    gradebook among them): the triggers count them as finished, each learner's row too."""
    call_command("loaddemo", verbosity=0)
    call_command("seedattempts", "data-parallelism-quiz", count=80, seed=5, verbosity=0)
    quiz = Quiz.objects.get(slug="data-parallelism-quiz")
    open_ones = Attempt.objects.filter(quiz=quiz, completed_at=None, abandoned_at=None)
    assert open_ones.exclude(user=None).exists()
    now = timezone.now()
    overdue = open_ones.update(deadline=now - timedelta(minutes=5))
    assert Attempt.objects.submit_overdue(now) == overdue
    assert not Attempt.objects.overdue(now).exists()
    all_attempts = reports.ReportFilter(first_only=False)
    kept, scanned = both_ways(quiz, all_attempts, settings)
    assert kept == scanned
    assert_as_rebuilt()


@pytest.mark.django_db
def test_finished_attempts_have_the_worker_fold_the_deltas_once_a_minute(
    client, django_capture_on_commit_callbacks
):
    """The worker is asked on an attempt's completion (after its commit), not again within
    the minute; its task folds the deltas. The report page folds them too, first."""
    cache.delete("reports:rollups-compact")
    call_command("loaddemo", verbosity=0)
    call_command("seedattempts", "data-parallelism-quiz", count=30, seed=2, verbosity=0)
    quiz = Quiz.objects.get(slug="data-parallelism-quiz")
    attempt = Attempt.objects.filter(quiz=quiz).exclude(completed_at=None).first()

    def asked() -> int:
        return DBTaskResult.objects.filter(
            task_path=background.rollups_compact_task.module_path
        ).count()

    with django_capture_on_commit_callbacks(execute=True):
        attempt_finished.send(Attempt, attempt=attempt)
        attempt_finished.send(Attempt, attempt=attempt)
    assert asked() == 1
    assert deltas() > 0
    assert background.rollups_compact_task.call() > 0
    assert deltas() == 0 and background.rollups_compact_task.call() == 0
    Attempt.objects.filter(pk=attempt.pk).update(score=0)
    assert deltas() > 0
    client.force_login(User.objects.create_superuser("root"))
    assert client.get(f"/en/reports/quizzes/{quiz.slug}/").status_code == 200
    assert deltas() == 0


TABLES = ["quizzes_attempt", "quizzes_answer", "quizzes_answerchoice"]


@contextmanager
def plans():
    """The plans of the statements run within, the triggers' ones too (PostgreSQL's
    auto_explain, sent to this client as notices), as text."""
    with connection.cursor() as cursor:
        cursor.execute("LOAD 'auto_explain'")
        for setting, value in (
            ("auto_explain.log_min_duration", "0"),
            ("auto_explain.log_nested_statements", "on"),
            ("auto_explain.log_level", "notice"),
            ("client_min_messages", "notice"),
        ):
            cursor.execute(f"SET LOCAL {setting} = {value}")
    found = []

    def kept(diagnostic):
        found.append(diagnostic.message_primary)

    connection.connection.add_notice_handler(kept)
    try:
        yield found
    finally:
        connection.connection.remove_notice_handler(kept)
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL auto_explain.log_min_duration = -1")


@pytest.mark.django_db
def test_the_triggers_look_rows_up_when_the_tables_look_empty_to_the_planner():
    """Statistics that say the tables are empty while they hold rows (pages, no live rows:
    what an ANALYZE by another session, autovacuum's, finds while a bulk load or a test has
    not committed yet) don't make the triggers scan the tables: every statement of theirs
    reads the attempts, answers and picks by index, whatever the change."""
    call_command("loaddemo", verbosity=0)
    call_command("seedattempts", "data-parallelism-quiz", count=60, seed=7, verbosity=0)
    with connection.cursor() as cursor:
        # What that ANALYZE writes, in this transaction only (the tests' server runs them as
        # its superuser); a change to pg_class makes the triggers' cached plans planned again.
        cursor.execute("UPDATE pg_class SET reltuples = 0 WHERE relname = ANY(%s)", [TABLES])
        cursor.execute("SELECT min(relpages) FROM pg_class WHERE relname = ANY(%s)", [TABLES])
        assert cursor.fetchone()[0] > 0
    several = AnswerChoice.objects.filter(answer__choice=None).exclude(
        answer__attempt__completed_at=None
    )
    picks = list(several.order_by("pk")[:5])
    attempt = picks[0].answer.attempt
    with plans() as found:
        AnswerChoice.objects.filter(pk__in=[pick.pk for pick in picks]).delete()
        for pick in picks:
            pick.pk = None
        AnswerChoice.objects.bulk_create(picks)
        other = picks[0].choice.question.choices.exclude(picks__answer=picks[0].answer).first()
        AnswerChoice.objects.filter(pk=picks[0].pk).update(choice=other)
        Answer.objects.filter(attempt=attempt).update(credit=1)
        Attempt.objects.filter(pk=attempt.pk).update(score=0)
        answer = Answer.objects.filter(attempt=attempt).first()
        Answer.objects.filter(pk=answer.pk).delete()
        attempt.delete()
    triggers = [plan for plan in found if "INTO report_" in plan or "report_learner" in plan]
    assert len(triggers) >= 9
    scans = [
        line for plan in triggers for line in plan.splitlines() if "Seq Scan on quizzes_" in line
    ]
    assert scans == []
    assert_as_rebuilt()
