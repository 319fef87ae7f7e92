"""The reports' work in the task worker (django-tasks: Django 6's tasks framework, or its
backport on 5.2, with the database backend; `manage.py db_worker`): a report's attempts.csv,
and the rollups' compaction (at the end).

The streamed CSV takes about 10 s at 100,000 attempts and would outlast a web worker's
timeout at a million; its export as a task writes the same rows (`exports.attempt_rows`,
read from the reports' database) to a file of the private storage, `exports/<id>-<run>.csv`,
that only the instructor who asked for it downloads, and that goes after
`settings.EXPORT_KEEP_SECONDS` with its record.

Never half-written: the rows go to `<id>-<run>.part`, renamed to the `.csv` once complete,
and the record names the file only after the rename. A task writes its progress (rows
written of the total) every PROGRESS_ROWS rows or PROGRESS_SECONDS, which is its heartbeat;
a running export silent for `settings.EXPORT_STALE_SECONDS` lost its worker and is shown as
failed, to retry. A retry is the export's next `run`: the task of an earlier run writes
nothing more (each of its writes names its run) and stops at its next heartbeat.
"""

import os
import time
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.core.files.storage import storages
from django.db import connection
from django.db.models import Exists, F, OuterRef, Q
from django.http import QueryDict
from django.utils import timezone, translation

from quizsite.routers import reading_reports, reading_reports_stream
from quizsite.spreadsheets import csv_lines
from quizzes.models import Answer, ExportStatus, Quiz, ReportExport
from quizzes.reports import exports, rollups
from quizzes.reports import selectors as reports
from quizzes.reports.forms import ReportFilterForm

try:  # Django 6
    from django.tasks import task
except ImportError:  # Django 5.2: the backport
    from django_tasks import task

FOLDER = "exports"
PROGRESS_ROWS = 500
PROGRESS_SECONDS = 1.0


class Superseded(Exception):
    """The export was retried or deleted while this run wrote it."""


def _storage():
    return storages["private"]


def taught_by_of(user) -> int | None:
    """None for a reader of every learner (the site-wide report permission), else the user's
    id: a class's instructor reads the learners of their own classes only."""
    return None if user.has_perm("quizzes.view_report") else user.pk


def report_form(query: QueryDict) -> ReportFilterForm:
    return ReportFilterForm(query, languages=settings.LANGUAGES, sorts=reports.LEARNER_SORTS)


def export_lost(export: ReportExport) -> bool:
    """A running export whose worker stopped writing its progress: killed, or its machine."""
    if export.status != ExportStatus.RUNNING or export.heartbeat_at is None:
        return False
    stale = timedelta(seconds=settings.EXPORT_STALE_SECONDS)
    return export.heartbeat_at < timezone.now() - stale


def export_request(*, user, quiz: Quiz, query: str, language: str) -> ReportExport:
    """Ask the task worker for `quiz`'s attempts.csv under the filters of `query`, read by
    `user`'s rights, its texts in `language`."""
    exports_expired_delete()
    export = ReportExport.objects.create(
        requested_by=user, quiz=quiz, query=query, language=language
    )
    attempts_export_task.enqueue(export_id=str(export.pk), run=export.run)
    return export


def export_retry(*, export: ReportExport) -> bool:
    """Start the next run of a failed export, or of one whose worker was lost; False if it
    is neither (any more: another request retried it first)."""
    stale = timezone.now() - timedelta(seconds=settings.EXPORT_STALE_SECONDS)
    lost = Q(status=ExportStatus.RUNNING, heartbeat_at__lt=stale)
    retried = (
        ReportExport.objects.filter(pk=export.pk, run=export.run)
        .filter(Q(status=ExportStatus.FAILED) | lost)
        .update(
            run=F("run") + 1,
            status=ExportStatus.WAITING,
            rows_written=0,
            error="",
            heartbeat_at=None,
            finished_at=None,
        )
    )
    if not retried:
        return False
    _remove(_part_path(export.pk, export.run))  # A lost run's unfinished file.
    attempts_export_task.enqueue(export_id=str(export.pk), run=export.run + 1)
    return True


def exports_expired_delete() -> None:
    """Remove the exports asked for over EXPORT_KEEP_SECONDS ago, and every file as old (an
    unfinished one a killed worker left)."""
    limit = timezone.now() - timedelta(seconds=settings.EXPORT_KEEP_SECONDS)
    ReportExport.objects.filter(created_at__lt=limit).delete()
    try:
        _folders, names = _storage().listdir(FOLDER)
    except FileNotFoundError:
        return
    for name in names:
        path = f"{FOLDER}/{name}"
        try:
            if _storage().get_modified_time(path) < limit:
                _storage().delete(path)
        except FileNotFoundError:
            pass  # Another process removed it first.


def export_file_path(export: ReportExport) -> str | None:
    """Where a finished export's file is, or None when it is not finished or is gone."""
    if export.status != ExportStatus.DONE or not export.file_name:
        return None
    path = _storage().path(export.file_name)
    return path if os.path.exists(path) else None


def _part_path(export_id, run: int) -> str:
    return _storage().path(f"{FOLDER}/{export_id}-{run}.part")


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


def _attempts_counted(quiz: Quiz, report_filter: reports.ReportFilter) -> int:
    """The rows the export will write: the completed attempts answered at least once."""
    answered = Exists(Answer.objects.filter(attempt=OuterRef("pk")))
    return reports.completed_for(quiz, report_filter).filter(answered).count()


def _progress(export_id, run: int, **fields) -> None:
    """Write this run's progress, its heartbeat; Superseded if the run is no longer the
    export's."""
    written = ReportExport.objects.filter(
        pk=export_id, run=run, status=ExportStatus.RUNNING
    ).update(heartbeat_at=timezone.now(), **fields)
    if not written:
        raise Superseded


def _write(export: ReportExport, run: int, part: str) -> int:
    """Write the export's rows to `part`, then rename it to the export's file; the rows."""
    with translation.override(export.language):
        form = report_form(QueryDict(export.query))
        if not form.is_valid():  # Checked when asked for: the form changed since.
            raise ValueError(form.errors.as_text())
        report_filter = form.report_filter(taught_by=taught_by_of(export.requested_by))
        with reading_reports():
            total = _attempts_counted(export.quiz, report_filter)
        _progress(export.pk, run, rows_total=total)
        rows = exports.attempt_rows(quiz=export.quiz, report_filter=report_filter)
        written, heartbeat = -2, time.monotonic()  # The byte order mark and the header.
        os.makedirs(os.path.dirname(part), exist_ok=True)
        with open(part, "w", encoding="utf-8", newline="") as file:
            for line in reading_reports_stream(csv_lines(rows)):
                file.write(line)
                written += 1
                if written % PROGRESS_ROWS == 0 or time.monotonic() - heartbeat > PROGRESS_SECONDS:
                    _progress(export.pk, run, rows_written=max(written, 0))
                    heartbeat = time.monotonic()
            file.flush()
            os.fsync(file.fileno())
    name = f"{FOLDER}/{export.pk}-{run}.csv"
    os.replace(part, _storage().path(name))
    done = ReportExport.objects.filter(pk=export.pk, run=run, status=ExportStatus.RUNNING).update(
        status=ExportStatus.DONE,
        file_name=name,
        rows_written=written,
        rows_total=written,
        heartbeat_at=timezone.now(),
        finished_at=timezone.now(),
    )
    if not done:
        _storage().delete(name)
        raise Superseded
    return written


@task()
def attempts_export_task(*, export_id: str, run: int) -> int:
    """Run `run` of an export: its file written, or nothing (failed, with the error's kind);
    the rows written, or 0 when this run is no longer the export's."""
    claimed = ReportExport.objects.filter(
        pk=export_id, run=run, status=ExportStatus.WAITING
    ).update(status=ExportStatus.RUNNING, heartbeat_at=timezone.now())
    if not claimed:
        return 0
    export = ReportExport.objects.select_related("quiz", "requested_by").get(pk=export_id)
    part = _part_path(export.pk, run)
    try:
        written = _write(export, run, part)
    except Superseded:
        _remove(part)
        return 0
    except BaseException as error:
        _remove(part)
        ReportExport.objects.filter(pk=export.pk, run=run).update(
            status=ExportStatus.FAILED, error=type(error).__name__, finished_at=timezone.now()
        )
        raise
    exports_expired_delete()
    return written


# The report rollups' deltas (rollups.py), folded by the worker at most once a minute.
COMPACTION_EVERY_SECONDS = 60


@task()
def rollups_compact_task() -> int | None:
    """Fold the report rollups' deltas into them: the rows folded (0 when another compaction
    was running), None without rollups."""
    return rollups.compact()


def rollups_compact_soon() -> None:
    """Have the worker fold the deltas, unless it was asked within the last minute (by this
    process, or by any node when they share a cache): the deltas stay a minute's writes, which
    a report reads in a few milliseconds."""
    if connection.vendor != "postgresql" or not settings.REPORT_ROLLUPS:
        return
    if cache.add("reports:rollups-compact", True, COMPACTION_EVERY_SECONDS):
        rollups_compact_task.enqueue()
