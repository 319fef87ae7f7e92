"""A task worker killed (SIGKILL) while it writes an export: the real `manage.py db_worker` in
a process of its own, on the test's PostgreSQL database, or on an SQLite file of the test's
own (the suite's SQLite database is in memory, which no other process opens). The export is
left without a file, shown failed once its heartbeat is stale, and a retry, run by a new
worker, writes it whole."""

import csv
import os
import signal
import sqlite3
import subprocess
import time
from urllib.parse import quote

import pytest
from django.core.files.storage import storages
from django.core.management import call_command
from django.db import connection

from quizzes.models import ExportStatus, ReportExport
from tests.factories import make_quiz
from tests.quizsite.servers import PYTHON, ROOT, manage, site_env
from tests.reports.report_data import instructor

ATTEMPTS = 20_000  # About two seconds of writing: time to see it running, and to kill it.
URL = "/en/reports/quizzes/big-quiz/"
on_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the suite's database is in memory"
)
on_sqlite = pytest.mark.skipif(
    connection.vendor != "sqlite", reason="the suite runs on PostgreSQL: the test above"
)


def database_url() -> str:
    s = connection.settings_dict
    password = f":{quote(s['PASSWORD'], safe='')}" if s["PASSWORD"] else ""
    return f"postgres://{quote(s['USER'], safe='')}{password}@{s['HOST']}:{s['PORT']}/{s['NAME']}"


def worker_start(env: dict | None = None) -> subprocess.Popen:
    env = env or site_env(
        DATABASE_URL=database_url(),
        PRIVATE_ROOT=str(storages["private"].location),
        SECRET_KEY="killed-worker-test-" + "k" * 50,
    )
    command = ["manage.py", "db_worker", "--no-startup-delay", "--interval", "0.1", "--no-reload"]
    return subprocess.Popen(
        [PYTHON, *command],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def waited(export_id, until, seconds: float = 120) -> ReportExport:
    deadline = time.monotonic() + seconds
    while True:
        export = ReportExport.objects.get(pk=export_id)
        if until(export):
            return export
        assert time.monotonic() < deadline, (export.status, export.rows_written)
        time.sleep(0.01)


def files(folder=None) -> list[str]:
    folder = folder or storages["private"].path("exports")
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_export_leaves_no_file_and_a_retry_writes_it(client, settings):
    quiz = make_quiz(slug="big-quiz", questions=4)
    call_command("seedattempts", quiz.slug, count=ATTEMPTS, seed=1, verbosity=0)
    client.force_login(instructor())
    page = client.post(URL + "attempts-export/?attempts=all").url
    export = ReportExport.objects.get()

    worker = worker_start()
    try:
        running = waited(export.pk, lambda e: e.rows_written > 0)
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=10)
    finally:
        worker.kill()
    killed = ReportExport.objects.get(pk=export.pk)
    assert killed.status == ExportStatus.RUNNING
    assert 0 < running.rows_written <= killed.rows_written < killed.rows_total
    assert killed.file_name == ""
    assert files() == [f"{export.pk}-1.part"]  # Half-written, under a name nothing serves.
    assert client.get(page + "attempts.csv").status_code == 404

    settings.EXPORT_STALE_SECONDS = 1
    time.sleep(1.1)
    lost = client.get(page).content.decode()
    assert "the task worker writing it no longer answers" in lost
    assert client.post(page + "retry/").status_code == 302
    assert files() == []

    worker = worker_start()
    try:
        done = waited(export.pk, lambda e: e.status != ExportStatus.WAITING and e.finished_at)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    assert (done.status, done.run) == (ExportStatus.DONE, 2)
    assert files() == [f"{export.pk}-2.csv"]
    response = client.get(page + "attempts.csv")
    body = b"".join(response.streaming_content)
    streamed = b"".join(client.get(URL + "attempts.csv?attempts=all").streaming_content)
    assert body == streamed
    assert body.count(b"\n") == 1 + done.rows_written == 1 + done.rows_total


SQLITE_EXPORT = """
from django.contrib.auth.models import Permission, User
from quizzes.models import Quiz
from quizzes.reports.background import export_request
user = User.objects.create_user("ines")
user.user_permissions.add(Permission.objects.get(codename="view_report"))
quiz = Quiz.objects.get(slug="data-parallelism-quiz")
print(export_request(user=user, quiz=quiz, query="attempts=all", language="en").pk)
"""
SQLITE_RETRY = """
import sys
from quizzes.models import ReportExport
from quizzes.reports.background import export_retry
sys.exit(0 if export_retry(export=ReportExport.objects.get()) else 1)
"""


@on_sqlite
def test_a_worker_killed_mid_export_on_sqlite_leaves_no_file_and_a_retry_writes_it(tmp_path):
    """The same on SQLite (WAL): the killed worker's write lock goes with it."""
    database = tmp_path / "db.sqlite3"
    env = site_env(
        DATABASE_URL=f"sqlite:///{database}",
        PRIVATE_ROOT=str(tmp_path / "private"),
        SECRET_KEY="killed-worker-test-" + "k" * 50,
        EXPORT_STALE_SECONDS="1",
    )
    for command in (
        ["migrate", "--noinput"],
        ["loaddemo"],
        ["seedattempts", "data-parallelism-quiz", "--count", "4000", "--seed", "1"],
        ["shell", "-c", SQLITE_EXPORT],
    ):
        result = manage(*command, env=env)
        assert result.returncode == 0, result.stderr
    export_id = result.stdout.split()[-1].replace("-", "")  # After the shell's own lines.
    folder = tmp_path / "private" / "exports"

    def record() -> tuple:
        with sqlite3.connect(database) as db:
            return db.execute(
                "SELECT status, run, rows_written, rows_total, file_name FROM quizzes_reportexport"
            ).fetchone()

    worker = worker_start(env)
    try:
        deadline = time.monotonic() + 120
        while record()[2] == 0:
            assert time.monotonic() < deadline, record()
            time.sleep(0.01)
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=10)
    finally:
        worker.kill()
    status, run, written, total, file_name = record()
    assert (status, run, file_name) == ("running", 1, "")
    assert 0 < written < total
    assert [name.replace("-", "") for name in files(folder)] == [f"{export_id}1.part"]

    time.sleep(1.1)  # EXPORT_STALE_SECONDS: the heartbeat is stale.
    assert manage("shell", "-c", SQLITE_RETRY, env=env).returncode == 0
    assert files(folder) == []
    worker = worker_start(env)
    try:
        deadline = time.monotonic() + 120
        while record()[0] != "done":
            assert time.monotonic() < deadline, record()
            time.sleep(0.05)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    status, run, written, total, file_name = record()
    assert (run, written) == (2, total)
    assert files(folder) == [os.path.basename(file_name)]
    with open(folder / os.path.basename(file_name), encoding="utf-8-sig") as file:
        assert sum(1 for _row in csv.reader(file)) == 1 + total
