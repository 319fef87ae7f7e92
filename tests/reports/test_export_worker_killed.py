"""A task worker killed (SIGKILL) while it writes an export: the real `manage.py db_worker` in
a process of its own, on the test's PostgreSQL database. The export is left without a file,
shown failed once its heartbeat is stale, and a retry, run by a new worker, writes it whole."""

import os
import signal
import subprocess
import time
from urllib.parse import quote

import pytest
from django.core.files.storage import storages
from django.core.management import call_command
from django.db import connection

from quizzes.models import ExportStatus, ReportExport
from tests.factories import make_quiz
from tests.quizsite.servers import PYTHON, ROOT, site_env
from tests.reports.report_data import instructor

ATTEMPTS = 20_000  # About two seconds of writing: time to see it running, and to kill it.
URL = "/en/reports/quizzes/big-quiz/"
pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="SQLite's test database is in memory: a worker process can't open it",
    ),
]


def database_url() -> str:
    s = connection.settings_dict
    password = f":{quote(s['PASSWORD'], safe='')}" if s["PASSWORD"] else ""
    return f"postgres://{quote(s['USER'], safe='')}{password}@{s['HOST']}:{s['PORT']}/{s['NAME']}"


def worker_start() -> subprocess.Popen:
    env = site_env(
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


def files() -> list[str]:
    folder = storages["private"].path("exports")
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


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
