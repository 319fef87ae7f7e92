"""Where a report reads from, and how old its figures are: the replica, or the primary.

A report page asks once, before its queries (`reports_source()`): one statement on the
replica says how far behind the primary it is. The report reads from the replica when it
answers and is at most REPORTS_MAX_LAG_SECONDS behind, and says by how much; otherwise from
the primary, whose figures are current, and says why. An instructor would rather have their
figures a little more expensively than a 503 about a copy they don't manage, and the primary
can afford a report (it served them all before the replica). A replica that failed is not
asked again for PAUSE seconds by this process, so each page does not wait on it in turn.
"""

import logging
import time
from dataclasses import dataclass

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.utils.translation import gettext as _

from quizsite.routers import REPORTS

logger = logging.getLogger(__name__)

PAUSE = 5.0  # seconds

# Caught up: everything received is replayed, and the receiver streams (or its state can't be
# seen: a role without pg_read_all_stats sees no status). Else the time since the last
# transaction replayed, its commit time on the primary: what the replica shows is at most that
# old (NULL when nothing was replayed since it started). On a server that isn't in recovery
# (REPORTS_DATABASE_URL naming the primary, or a promoted replica), nothing is behind.
LAG_SQL = """SELECT CASE
    WHEN NOT pg_is_in_recovery() THEN 0.0
    WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn()
        AND coalesce((SELECT status FROM pg_stat_wal_receiver), 'streaming') = 'streaming'
        THEN 0.0
    ELSE extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp())::float8
END
"""

UNREACHABLE = "unreachable"
BEHIND = "behind"

_down_until = 0.0  # this process asks the replica again from then (time.monotonic())


@dataclass(frozen=True)
class ReportsSource:
    """The database a report reads (`alias`), and what its page says of it: the replica's
    lag in seconds (None when not measured), or why it reads from the primary instead."""

    alias: str
    lag: float | None = None
    fallback: str | None = None  # UNREACHABLE or BEHIND: read from the primary

    @property
    def note(self) -> str:
        """What the report page says of its figures' age, in the page's language ("" when
        there is no replica)."""
        if self.fallback == UNREACHABLE:
            return _(
                "Figures as of now: the reports' copy of the database can't be reached, so"
                " they were read from the main database."
            )
        if self.fallback == BEHIND:
            return _(
                "Figures as of now: the reports' copy of the database is more than %(most)s"
                " behind, so they were read from the main database."
            ) % {"most": duration(settings.REPORTS_MAX_LAG_SECONDS)}
        if self.lag is None:
            return ""
        if self.lag < 1:
            return _("Figures as of less than a second ago.")
        return _("Figures as of %(age)s ago.") % {"age": duration(self.lag)}

    @property
    def header(self) -> str:
        """The value of the report responses' Quizsite-Reports-Source header (the CSVs' too)."""
        if self.fallback:
            return f"primary; fallback={self.fallback}"
        if self.alias == REPORTS:
            return "replica" if self.lag is None else f"replica; lag={self.lag:.1f}"
        return "primary"


PRIMARY = ReportsSource(DEFAULT_DB_ALIAS)


def duration(seconds: float) -> str:
    """12 s, 3 min 5 s, 2 h 10 min: the symbols of the units, the same in English and French,
    a no-break space between a number and its unit."""
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}\u00a0s"
    if seconds < 3600:
        minutes, seconds = divmod(seconds, 60)
        return f"{minutes}\u00a0min {seconds}\u00a0s" if seconds else f"{minutes}\u00a0min"
    hours, minutes = divmod(seconds // 60, 60)
    return f"{hours}\u00a0h {minutes}\u00a0min" if minutes else f"{hours}\u00a0h"


def reports_source() -> ReportsSource:
    """Where this page's reports read: asks the replica its lag (one statement), if there is
    one and it has not failed in the last PAUSE seconds."""
    if REPORTS not in connections.settings:
        return PRIMARY
    if time.monotonic() < _down_until:
        return ReportsSource(DEFAULT_DB_ALIAS, fallback=UNREACHABLE)
    connection = connections[REPORTS]
    if connection.vendor != "postgresql":
        return ReportsSource(REPORTS)  # a test's SQLite mirror of the primary: nothing to ask
    try:
        with connection.cursor() as cursor:
            cursor.execute(LAG_SQL)
            (lag,) = cursor.fetchone()
    except DatabaseError as error:
        return replica_failed(error)
    if lag is None or lag > settings.REPORTS_MAX_LAG_SECONDS:
        logger.warning("reports read from the primary: the replica is %s s behind", lag)
        return ReportsSource(DEFAULT_DB_ALIAS, lag=lag, fallback=BEHIND)
    return ReportsSource(REPORTS, lag=max(lag, 0.0))


def replica_failed(error: Exception) -> ReportsSource:
    """The replica did not answer (at connection, or during a report): the primary, and not
    the replica again for PAUSE seconds."""
    global _down_until
    _down_until = time.monotonic() + PAUSE
    logger.warning("reports read from the primary: the replica can't be reached: %s", error)
    return ReportsSource(DEFAULT_DB_ALIAS, fallback=UNREACHABLE)
