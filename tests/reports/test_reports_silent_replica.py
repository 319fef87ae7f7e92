"""A replica host gone silent (it takes the connection and never answers): the report page
waits for it at most its connection timeout, then reads from the primary and says so.

PostgreSQL only: the `reports` alias is a PostgreSQL server's address that a socket of this
test holds. Transactional, as tests/reports/test_reports_replica.py, for the same reason: a
TestCase would open the alias's transaction before the test.
"""

import copy
import socket
import time
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.db import connections

from quizsite import replica
from quizsite.routers import REPORTS
from quizsite.settings import database_from_url
from tests.reports.report_data import URL, instructor

pytestmark = [
    pytest.mark.skipif(
        "postgresql" not in settings.DATABASES["default"]["ENGINE"],
        reason="a PostgreSQL replica's address",
    ),
    pytest.mark.django_db(transaction=True, databases=["default", REPORTS]),
]


@pytest.fixture(scope="module", autouse=True)
def silent_replica(django_db_setup) -> Iterator[float]:
    """The reports alias at a port that completes the TCP handshake and then says nothing;
    yields the seconds the site waits for a connection to it. Module-scoped, so the alias
    exists before the tests' database access is set up."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        default = connections["default"].settings_dict
        url = f"postgres://postgres@127.0.0.1:{server.getsockname()[1]}/{default['NAME']}"
        alias = database_from_url(url, name="REPORTS_DATABASE_URL", connect_timeout=2)
        connections.settings[REPORTS] = copy.deepcopy(default) | {
            "PORT": alias["PORT"],
            "OPTIONS": alias["OPTIONS"],  # as settings.py makes them for REPORTS_DATABASE_URL
            "TEST": default["TEST"] | {"MIRROR": "default"},
        }
        pool = alias["OPTIONS"].get("pool")
        yield pool["timeout"] if pool else alias["OPTIONS"]["connect_timeout"]
        connection = connections[REPORTS]
        if pool:
            connection.close_pool()
        del connections[REPORTS]
        del connections.settings[REPORTS]


@pytest.fixture
def router(settings, monkeypatch):
    settings.DATABASE_ROUTERS = ["quizsite.routers.ReportsRouter"]
    # This process asks the replica again after the test, whatever the test saw.
    monkeypatch.setattr(replica, "_down_until", 0.0)


def test_a_silent_replica_delays_the_report_at_most_its_timeout(
    silent_replica, router, client, hand_quiz
):
    client.force_login(instructor())
    started = time.monotonic()
    response = client.get(URL)
    took = time.monotonic() - started
    assert response.status_code == 200
    assert response["Quizsite-Reports-Source"] == "primary; fallback=unreachable"
    assert "Ana Alves" in response.content.decode()  # the primary's figures
    assert silent_replica <= took < silent_replica + 1
    # This process does not ask it again for a while: the next page does not wait.
    started = time.monotonic()
    response = client.get(URL + "questions.csv")
    assert response["Quizsite-Reports-Source"] == "primary; fallback=unreachable"
    assert b"Q1 choice 1" in b"".join(response.streaming_content)
    assert time.monotonic() - started < 0.5
    # Learners never touch it.
    assert client.get("/en/").status_code == 200
