"""Django's PostgreSQL backend, with a pool that checks a connection only when it has been
idle: `ENGINE = "quizsite.postgresql"` (quizsite/settings.py sets it with the pool).

Django's pool health check (CONN_HEALTH_CHECKS) sends an empty query before lending every
connection: a round trip per request, 3.4 of the 13 statements of a learner's answer step.
A connection lent again within IDLE_CHECK_AFTER seconds was working a moment ago, and one
that failed since is not in the pool any more (psycopg_pool discards a broken connection when
it comes back), so only a connection idle for longer, which a restarted server or a dropped
link may have closed meanwhile, is checked before it is lent.
"""

from time import monotonic
from weakref import WeakKeyDictionary

from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool

IDLE_CHECK_AFTER = 1.0  # seconds

_lent_at: WeakKeyDictionary = WeakKeyDictionary()  # connection -> when the pool last lent it


def check_if_idle(connection) -> None:
    """The pool's `check`: ConnectionPool.check_connection, for a connection lent for the
    first time or not lent for IDLE_CHECK_AFTER seconds; raises if it does not work."""
    now = monotonic()
    lent = _lent_at.get(connection)
    _lent_at[connection] = now
    if lent is None or now - lent > IDLE_CHECK_AFTER:
        ConnectionPool.check_connection(connection)


class DatabaseWrapper(base.DatabaseWrapper):
    @property
    def pool(self):
        pool = super().pool
        # Django gives the pool its check as it creates it (CONN_HEALTH_CHECKS); the pool
        # calls it, as `_check`, on every connection it lends.
        if pool is not None and pool._check is ConnectionPool.check_connection:
            pool._check = check_if_idle
        return pool
