"""With a read replica configured (REPORTS_DATABASE_URL), the reports read from it, and only they.

The `reports` alias exists only when the variable is set at start-up, so this module adds it
while its tests run, as settings.py makes it under test: the test database itself (MIRROR),
through a connection of its own. That connection is outside the test's transaction, so these
tests commit their data (transaction=True), as the primary does before replicating it.
"""

import copy
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.contrib.auth.models import User
from django.db import connections
from django.test.utils import CaptureQueriesContext

from quizsite.routers import REPORTS
from tests.factories import answer, choice_of, make_quiz, question_url, results_url, start
from tests.reports.report_data import URL, instructor

pytestmark = pytest.mark.django_db(transaction=True, databases=["default", REPORTS])


@pytest.fixture(scope="module", autouse=True)
def reports_alias(django_db_setup):
    """Module-scoped, so the alias exists before the tests' database access is set up."""
    default = connections["default"].settings_dict  # the test database's, after setup
    connections.settings[REPORTS] = copy.deepcopy(default) | {
        "TEST": default["TEST"] | {"MIRROR": "default"}
    }
    yield
    connection = connections[REPORTS]
    connection.close()
    if connection.settings_dict["OPTIONS"].get("pool"):
        connection.close_pool()  # or the test database can't be dropped at the end
    del connections[REPORTS]
    del connections.settings[REPORTS]


@pytest.fixture
def replica(settings):
    settings.DATABASE_ROUTERS = ["quizsite.routers.ReportsRouter"]


@pytest.fixture
def instructor_client(client):
    """Allowed by a permission of their own: a transactional test's flush removes the
    Instructors group, which a migration made, but not the permissions."""
    client.force_login(instructor())
    return client


@contextmanager
def queries() -> Iterator[tuple[list[str], list[str]]]:
    """The SQL run on the primary and on the replica inside the block."""
    primary, replica = [], []
    with (
        CaptureQueriesContext(connections["default"]) as on_primary,
        CaptureQueriesContext(connections[REPORTS]) as on_replica,
    ):
        yield primary, replica
    primary += [query["sql"] for query in on_primary.captured_queries]
    replica += [query["sql"] for query in on_replica.captured_queries]


def session_or_user_lookup(sql: str) -> bool:
    """The middleware's and the permission check's reads: the session, the user, their rights."""
    return sql.startswith("SELECT") and ('"django_session"' in sql or '"auth_' in sql)


def rollups_compaction(sql: str) -> bool:
    """The quiz's report page folds the rollups' deltas first, on the primary (quizzes/reports/
    rollups.py): the one write a report makes, which the replica can't."""
    return sql.lstrip().startswith("WITH go AS (SELECT pg_try_advisory_xact_lock(")


def assert_read_from_the_replica(primary: list[str], replica: list[str]) -> None:
    assert any('"quizzes_' in sql for sql in replica), replica
    assert all(sql.startswith("SELECT") for sql in replica), replica
    assert not any('"django_session"' in sql for sql in replica), replica
    assert any('"django_session"' in sql for sql in primary), primary
    assert all(session_or_user_lookup(sql) or rollups_compaction(sql) for sql in primary), primary


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("/en/reports/", "Data parallelism quiz"),
        (URL, "Ana Alves"),
        (URL + "questions.csv", "Q1 choice 1"),
    ],
)
def test_report_pages_read_from_the_replica(replica, instructor_client, hand_quiz, path, shown):
    with queries() as (primary, replica_sql):
        response = instructor_client.get(path)
        content = b"".join(response.streaming_content) if response.streaming else response.content
    assert response.status_code == 200
    assert shown in content.decode()
    assert_read_from_the_replica(primary, replica_sql)


def test_attempts_csv_streams_its_rows_from_the_replica(replica, instructor_client, hand_quiz):
    with queries() as (primary, replica_sql):
        response = instructor_client.get(URL + "attempts.csv")
    assert response.status_code == 200
    assert_read_from_the_replica(primary, replica_sql)
    # The rows are read while the response streams, after the view has returned.
    with queries() as (primary, replica_sql):
        body = b"".join(response.streaming_content).decode("utf-8-sig")
    assert "Ana Alves" in body
    assert primary == []
    assert any('"quizzes_answer"' in sql for sql in replica_sql), replica_sql


def test_learner_pages_use_only_the_primary(replica, client, guide):
    quiz = make_quiz(questions=2, guide=guide)
    with queries() as (primary, replica_sql):
        assert client.get("/en/").status_code == 200
        assert client.get(f"/en/quizzes/{quiz.slug}/").status_code == 200
        attempt = start(client, quiz)
        assert client.get(question_url(attempt, 1)).status_code == 200
        answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
        answer(client, attempt, 2, choice_of(quiz, 2, correct=False))
        assert client.get(results_url(attempt)).status_code == 200
    assert replica_sql == []
    assert any('"quizzes_answer"' in sql for sql in primary)


def test_the_admin_uses_only_the_primary(replica, client, hand_quiz):
    client.force_login(User.objects.create_superuser("root", password="not-used"))
    with queries() as (primary, replica_sql):
        assert client.get("/admin/quizzes/attempt/").status_code == 200
    assert replica_sql == []
    assert any('"quizzes_attempt"' in sql for sql in primary)


def test_attempts_list_and_review_read_from_the_replica(replica, instructor_client, hand_quiz):
    attempt = hand_quiz.attempts.filter(user__username="ana", is_first=True).get()
    for path, shown in [
        (URL + "attempts/", "Ana Alves"),
        (URL + f"attempts/{attempt.public_id}/", "Attempt of Ana Alves"),
    ]:
        with queries() as (primary, replica_sql):
            response = instructor_client.get(path)
        assert response.status_code == 200
        assert shown in response.content.decode()
        assert_read_from_the_replica(primary, replica_sql)
