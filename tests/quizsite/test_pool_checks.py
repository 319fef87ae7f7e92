"""The pool checks a connection before lending it only when it has been idle
(quizsite/postgresql/base.py): on the PostgreSQL run of `make test`, against its server."""

import time

import psycopg
import pytest
from django.db import connection

from quizsite.postgresql.base import IDLE_CHECK_AFTER, check_if_idle

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the pool: the PostgreSQL run of make test"
)


def _connect() -> psycopg.Connection:
    params = connection.get_connection_params()
    return psycopg.connect(**{k: v for k, v in params.items() if k != "cursor_factory"})


def _terminate(victim: psycopg.Connection) -> None:
    with _connect() as other:
        other.execute("SELECT pg_terminate_backend(%s)", [victim.info.backend_pid])
    time.sleep(0.1)  # The server's side closes.


@pytest.mark.django_db
def test_the_sites_pool_uses_it():
    assert connection.settings_dict["ENGINE"] == "quizsite.postgresql"
    assert connection.pool._check is check_if_idle


@pytest.mark.django_db
def test_a_connection_lent_a_moment_ago_is_not_checked_an_idle_one_is():
    lent = _connect()
    check_if_idle(lent)  # Never lent before: checked, and it works.
    _terminate(lent)
    check_if_idle(lent)  # Lent a moment ago: lent again without a round trip.
    time.sleep(IDLE_CHECK_AFTER + 0.1)
    with pytest.raises(psycopg.OperationalError):
        check_if_idle(lent)  # Idle since: checked, and found closed.
    lent.close()


@pytest.mark.django_db
def test_a_pooled_connection_the_server_closed_while_idle_is_replaced():
    pool = connection.pool
    lent = pool.getconn()
    pid = lent.info.backend_pid
    pool.putconn(lent)
    _terminate(lent)
    time.sleep(IDLE_CHECK_AFTER + 0.1)
    again = pool.getconn()
    try:
        assert again.execute("SELECT 1").fetchone() == (1,)
        assert again.info.backend_pid != pid
    finally:
        pool.putconn(again)
