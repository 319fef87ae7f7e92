"""A report's attempts.csv written by the task worker (quizzes/reports/background.py): the
page that follows it, the file only its instructor downloads, a lost worker's export shown
failed and retried, old exports deleted. The worker is the real one (django-tasks' database
backend, `db_worker`), run in the test's process; tests/reports/test_export_worker_killed.py
kills one running in a process of its own."""

import csv
import io
import os
import re
from datetime import timedelta

import pytest
from django.core.files.storage import storages
from django.core.management import call_command
from django.utils import timezone

from quizzes.models import ExportStatus, ReportExport
from quizzes.reports import background
from tests.factories import make_quiz
from tests.reports import test_class_reports
from tests.reports.report_data import URL, instructor
from tests.reports.test_class_reports import URL as SCOPED_URL
from tests.reports.test_class_reports import csv_learners

EXPORT_PAGE = re.compile(r"^/(en|fr)/reports/exports/([0-9a-f-]{36})/$")
# The worker closes its connection between tasks, as it should: outside a test's transaction.
# (So the instructor has the permission itself: the migrations' groups are gone once a test
# has committed.)
pytestmark = pytest.mark.django_db(transaction=True)
world = test_class_reports.world


@pytest.fixture
def reader(client):
    client.force_login(instructor())
    return client


def exports_folder() -> list[str]:
    """The files in the exports' folder of the private storage."""
    folder = storages["private"].path("exports")
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


def worker_run() -> None:
    """The task worker, until nothing is left to run."""
    call_command("db_worker", batch=True, interval=0, verbosity=0, startup_delay=False)


def export_asked(client, url: str = URL, query: str = "attempts=all") -> str:
    """Ask for the export from the report page's form; the export's page."""
    response = client.post(f"{url}attempts-export/?{query}")
    assert response.status_code == 302
    assert EXPORT_PAGE.match(response.url), response.url
    return response.url


def streamed(client, url: str = URL, query: str = "attempts=all") -> bytes:
    return b"".join(client.get(f"{url}attempts.csv?{query}").streaming_content)


def downloaded(client, page: str) -> bytes:
    response = client.get(page + "attempts.csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    return b"".join(response.streaming_content)


def test_the_report_offers_the_export_and_the_worker_writes_the_streamed_rows(reader, hand_quiz):
    report = reader.get(URL, {"attempts": "all"}).content.decode()
    assert 'action="/en/reports/quizzes/dp-quiz/attempts-export/?attempts=all"' in report
    assert "Prepare the attempts CSV in the background" in report

    page = export_asked(reader)
    waiting = reader.get(page).content.decode()
    assert "The export waits for the task worker to start it." in waiting
    assert "reports/export-progress.js" in waiting
    assert f'<a href="{page}">Reload</a>' in waiting
    assert reader.get(page + "attempts.csv").status_code == 404
    assert reader.get(page + "progress.json").json()["status"] == "waiting"

    worker_run()
    done = reader.get(page).content.decode()
    assert "The file is ready: 7 attempts." in done
    assert f'href="{page}attempts.csv" download' in done
    assert "export-progress.js" not in done
    assert "deleted 24 hours after it was asked for" in done
    response = reader.get(page + "attempts.csv")
    assert response["Content-Disposition"] == 'attachment; filename="dp-quiz-attempts.csv"'
    body = downloaded(reader, page)
    assert body == streamed(reader)
    rows = list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))
    assert len(rows) == 1 + 7
    progress = reader.get(page + "progress.json").json()
    assert progress | {"text": ""} == {
        "status": "done",
        "lost": False,
        "rows_written": 7,
        "rows_total": 7,
        "text": "",
        "count": "",
    }
    # Nothing is left behind but the file.
    assert exports_folder() == [f"{EXPORT_PAGE.match(page)[2]}-1.csv"]


def test_a_running_export_shows_its_progress(reader, hand_quiz, settings):
    page = export_asked(reader)
    export = ReportExport.objects.get()
    ReportExport.objects.filter(pk=export.pk).update(
        status=ExportStatus.RUNNING, heartbeat_at=timezone.now()
    )
    counting = reader.get(page).content.decode()
    assert "Writing the file." in counting and "Counting the attempts." in counting
    ReportExport.objects.filter(pk=export.pk).update(rows_written=500, rows_total=1200)
    running = reader.get(page).content.decode()
    assert '<p role="status" id="export-status">Writing the file.</p>' in running
    assert '<p id="export-count">500 of 1200 attempts written.</p>' in running
    assert 'max="1200" value="500"' in running
    assert "Try again" not in running
    french = reader.get(page.replace("/en/", "/fr/")).content.decode()
    assert "Écriture du fichier." in french and "500 tentatives écrites sur 1200." in french
    progress = reader.get(page + "progress.json").json()
    assert (progress["status"], progress["rows_written"], progress["rows_total"]) == (
        "running",
        500,
        1200,
    )


def test_a_lost_worker_s_export_shows_failed_and_a_retry_writes_it(reader, hand_quiz, settings):
    """A running export whose heartbeat stopped (its worker killed) is failed; a retry runs it
    again, and the lost run, were it to wake up, writes nothing."""
    page = export_asked(reader)
    export = ReportExport.objects.get()
    since = timezone.now() - timedelta(seconds=settings.EXPORT_STALE_SECONDS + 1)
    ReportExport.objects.filter(pk=export.pk).update(
        status=ExportStatus.RUNNING, heartbeat_at=since, rows_written=3, rows_total=7
    )
    lost = reader.get(page).content.decode()
    assert "the task worker writing it no longer answers" in lost
    assert "Try again" in lost and "export-progress.js" not in lost
    assert reader.get(page + "progress.json").json()["status"] == "failed"
    assert reader.get(page + "attempts.csv").status_code == 404

    retried = reader.post(page + "retry/")
    assert retried.status_code == 302 and retried.url == page
    assert reader.post(page + "retry/").status_code == 400  # Once.
    export.refresh_from_db()
    assert (export.run, export.status, export.rows_written) == (2, "waiting", 0)
    assert background.attempts_export_task.call(export_id=str(export.pk), run=1) == 0
    export.refresh_from_db()
    assert export.status == "waiting"

    worker_run()
    assert "The file is ready: 7 attempts." in reader.get(page).content.decode()
    assert downloaded(reader, page) == streamed(reader)


def test_a_failed_export_says_so_keeps_no_file_and_can_be_retried(reader, hand_quiz, settings):
    """An export whose filters no longer read (here, a language since removed) fails."""
    page = export_asked(reader, query="language=fr")
    settings.LANGUAGES = [("en", "English")]
    worker_run()
    failed = reader.get(page).content.decode()
    assert "The export failed (ValueError): no file was kept." in failed
    assert "Try again" in failed
    assert exports_folder() == []
    assert reader.post(page + "retry/").status_code == 302
    assert ReportExport.objects.get().status == "waiting"


def test_an_export_is_its_instructor_s_only(reader, hand_quiz, client):
    page = export_asked(reader)
    worker_run()
    client.force_login(instructor("other"))
    for path in ("", "progress.json", "attempts.csv"):
        assert client.get(page + path).status_code == 404
    assert client.post(page + "retry/").status_code == 404
    unknown = "/en/reports/exports/00000000-0000-0000-0000-000000000000/"
    assert client.get(unknown).status_code == 404

    client.logout()
    assert client.get(page).status_code == 302  # To sign in.
    assert client.post(URL + "attempts-export/").status_code == 302
    client.force_login(hand_quiz.attempts.filter(user__isnull=False).first().user)
    assert client.post(URL + "attempts-export/").status_code == 403  # A learner.
    assert client.get(page).status_code == 403


def test_an_export_reads_as_its_instructor_does(world, client):
    """A class's instructor's export holds their classes' learners only, as their stream."""
    client.force_login(world["coach_a"])
    page = export_asked(client, SCOPED_URL)
    worker_run()
    body = downloaded(client, page).decode("utf-8-sig")
    learners = sorted(row[0] for row in list(csv.reader(io.StringIO(body)))[1:])
    assert learners == csv_learners(client) == ["ann", "ann"]
    # Another's class is not found, and no export is made.
    query = f"class={world['class_b'].pk}"
    assert client.post(f"{SCOPED_URL}attempts-export/?{query}").status_code == 404
    assert ReportExport.objects.count() == 1


def test_bad_requests_are_refused_and_record_nothing(reader, hand_quiz):
    assert reader.post(URL + "attempts-export/?date_from=soon").status_code == 400
    assert reader.get(URL + "attempts-export/").status_code == 405
    assert reader.post("/en/reports/quizzes/nope/attempts-export/").status_code == 404
    assert not ReportExport.objects.exists()
    page = export_asked(reader)
    refused = reader.post(page + "retry/")  # Waiting: not failed.
    assert refused.status_code == 400
    assert "This export has not failed" in refused.content.decode()


def test_a_french_export_has_french_headings(reader, hand_quiz):
    page = export_asked(reader, URL.replace("/en/", "/fr/"))
    worker_run()
    assert "Le fichier est prêt\u00a0: 7 tentatives." in reader.get(page).content.decode()
    body = downloaded(reader, page).decode("utf-8-sig")
    assert body.startswith("Apprenant,")


def test_old_exports_and_their_files_are_deleted(reader, hand_quiz, settings):
    old_page = export_asked(reader)
    worker_run()
    old = ReportExport.objects.get()
    settings.EXPORT_KEEP_SECONDS = 3600
    long_ago = timezone.now() - timedelta(hours=2)
    ReportExport.objects.filter(pk=old.pk).update(created_at=long_ago)
    folder = storages["private"].path("exports")
    left = os.path.join(folder, "0-1.part")  # A killed worker's unfinished file.
    with open(left, "w") as file:
        file.write("Learner\n")
    for name in os.listdir(folder):
        os.utime(os.path.join(folder, name), (long_ago.timestamp(), long_ago.timestamp()))

    page = export_asked(reader)
    assert reader.get(old_page).status_code == 404
    assert exports_folder() == []
    worker_run()
    assert "The file is ready" in reader.get(page).content.decode()


def test_the_progress_reads_a_few_queries(reader, hand_quiz, django_assert_num_queries):
    page = export_asked(reader)
    worker_run()
    # The session, the user, the user's and their groups' permissions, the export and its quiz.
    with django_assert_num_queries(5):
        reader.get(page + "progress.json")


def test_an_export_of_many_rows_writes_its_progress_between_them(reader, settings):
    """Past PROGRESS_ROWS rows the worker writes its progress while it still reads the rows
    (on SQLite too, whose reads and writes share one connection)."""
    quiz = make_quiz(slug="many", questions=2)
    call_command("seedattempts", quiz.slug, count=2 * background.PROGRESS_ROWS + 1, verbosity=0)
    page = export_asked(reader, "/en/reports/quizzes/many/")
    worker_run()
    export = ReportExport.objects.get()
    assert (export.status, export.rows_written) == ("done", export.rows_total)
    assert export.rows_total > 2 * background.PROGRESS_ROWS
    assert downloaded(reader, page) == streamed(reader, "/en/reports/quizzes/many/")
