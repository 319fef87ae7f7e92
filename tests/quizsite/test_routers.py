"""The reports' read replica: the router, and the settings that install it (or don't)."""

import json

from quizsite.replica import duration
from quizsite.routers import ReportsRouter, reading_reports, reading_reports_stream
from quizzes.models import Answer, Attempt, Quiz
from tests.quizsite.servers import manage, site_env

router = ReportsRouter()


def test_reads_go_to_the_replica_only_while_reading_reports():
    assert router.db_for_read(Answer) is None
    with reading_reports():
        assert router.db_for_read(Answer) == "reports"
        assert router.db_for_read(Quiz) == "reports"
    assert router.db_for_read(Answer) is None


def test_reading_reports_as_a_decorator_ends_with_the_call_even_when_it_raises():
    @reading_reports()
    def view(fail: bool = False):
        if fail:
            raise ValueError
        return router.db_for_read(Attempt)

    assert view() == "reports"
    assert view() == "reports"  # a fresh context each call
    assert router.db_for_read(Attempt) is None
    try:
        view(fail=True)
    except ValueError:
        pass
    assert router.db_for_read(Attempt) is None


def test_writes_always_go_to_the_primary():
    with reading_reports():
        assert router.db_for_write(Attempt) is None


def test_a_stream_reads_reports_while_producing_each_item_and_not_between():
    def rows():
        for _ in range(3):
            yield router.db_for_read(Answer)

    seen = []
    for item in reading_reports_stream(rows()):
        seen.append((item, router.db_for_read(Answer)))
    assert seen == [("reports", None)] * 3


def test_the_replica_is_never_migrated():
    assert router.allow_migrate("reports", "quizzes", "answer") is False
    assert router.allow_migrate("reports", "auth") is False
    assert router.allow_migrate("default", "quizzes", "answer") is None


def test_objects_from_primary_and_replica_may_be_related():
    quiz, attempt = Quiz(), Attempt()
    quiz._state.db, attempt._state.db = "reports", "default"
    assert router.allow_relation(quiz, attempt) is True
    attempt._state.db = "elsewhere"
    assert router.allow_relation(quiz, attempt) is None


SHOW_DATABASES = (
    "import json; from django.conf import settings; "
    "print(json.dumps({'databases': settings.DATABASES, 'routers': settings.DATABASE_ROUTERS},"
    " default=str))"
)


def databases_with(**variables: str) -> dict:
    result = manage("shell", "-c", SHOW_DATABASES, env=site_env(**variables))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_reports_database_url_adds_a_pooled_replica_alias_and_the_router():
    shown = databases_with(
        DATABASE_URL="postgres://quizsite@primary.example.org:5432/quizsite",
        REPORTS_DATABASE_URL="postgres://reader:secret@replica.example.org:5433/quizsite",
        DATABASE_POOL="true",
    )
    reports = shown["databases"]["reports"]
    assert (reports["HOST"], reports["PORT"]) == ("replica.example.org", 5433)
    assert (reports["USER"], reports["PASSWORD"]) == ("reader", "secret")
    assert reports["OPTIONS"]["pool"]["max_size"] == 4  # the same helper as DATABASE_URL's
    assert reports["TEST"]["MIRROR"] == "default"
    assert shown["databases"]["default"]["HOST"] == "primary.example.org"
    assert shown["routers"] == ["quizsite.routers.ReportsRouter"]


def test_without_reports_database_url_there_is_no_replica_and_no_router():
    shown = databases_with(DATABASE_URL="postgres://quizsite@primary.example.org:5432/quizsite")
    assert list(shown["databases"]) == ["default"]
    assert shown["routers"] == []


def test_unparseable_reports_database_url_is_one_line():
    result = manage("check", env=site_env(REPORTS_DATABASE_URL="replica-db"))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "manage.py: configuration error: REPORTS_DATABASE_URL can't be parsed: it must look"
        " like postgres://user:password@host:port/name"
    ]


def test_a_report_read_from_the_primary_instead_routes_there():
    """The replica down or too far behind (quizsite/replica.py): the report reads `default`."""
    with reading_reports("default"):
        assert router.db_for_read(Answer) == "default"
    rows = reading_reports_stream(iter([1, 2]), "default")
    assert [(item, router.db_for_read(Answer)) for item in rows] == [(1, None), (2, None)]


def test_a_replica_s_lag_is_said_in_seconds_minutes_and_hours():
    assert [duration(s) for s in (0.4, 12.7, 60, 185, 3600, 7810)] == [
        "0\xa0s",
        "12\xa0s",
        "1\xa0min",
        "3\xa0min 5\xa0s",
        "1\xa0h",
        "2\xa0h 10\xa0min",
    ]
