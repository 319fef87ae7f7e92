"""The instructors' reports read from a replica when REPORTS_DATABASE_URL is set (settings.py).

Only the report views read there, marked by `reading_reports()`; everything else, learner
pages, the admin, sessions and every write, stays on the primary (`default`), which reads
its own writes at once. A report view may also read its reports from the primary, when the
replica can't be reached or is too far behind (quizsite/replica.py): `reading_reports(alias)`.
"""

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from django.db import DEFAULT_DB_ALIAS

REPORTS = "reports"

T = TypeVar("T")

_reading_reports: ContextVar[str | None] = ContextVar("reading_reports", default=None)


@contextmanager
def reading_reports(alias: str = REPORTS) -> Iterator[None]:
    """Reads inside go to `alias`, the `reports` one unless told (when the router is installed).

    Usable as a decorator, `@reading_reports()`: put it below `@login_required` and
    `@permission_required`, so that the session and the user are read from the primary,
    where a sign-in has just written them.
    """
    token = _reading_reports.set(alias)
    try:
        yield
    finally:
        _reading_reports.reset(token)


def reading_reports_stream(items: Iterable[T], alias: str = REPORTS) -> Iterator[T]:
    """The items of a streamed response, each produced while reading the reports.

    A streaming response is iterated after its view has returned, outside the view's
    `reading_reports()`; the context is set around each step only, never between them,
    so nothing else the server does between two chunks reads from the replica.
    """
    iterator = iter(items)
    while True:
        with reading_reports(alias):
            try:
                item = next(iterator)
            except StopIteration:
                return
        yield item


class ReportsRouter:
    def db_for_read(self, model, **hints) -> str | None:
        return _reading_reports.get()

    def db_for_write(self, model, **hints) -> str | None:
        return None

    def allow_relation(self, obj1, obj2, **hints) -> bool | None:
        # The replica holds the primary's rows: an object read from one may point at the other.
        if {obj1._state.db, obj2._state.db} <= {DEFAULT_DB_ALIAS, REPORTS}:
            return True
        return None

    def allow_migrate(self, db, app_label, model_name=None, **hints) -> bool | None:
        # A replica follows the primary's schema; migrations run on the primary only.
        if db == REPORTS:
            return False
        return None
