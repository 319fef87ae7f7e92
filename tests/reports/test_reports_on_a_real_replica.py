"""The reports on a real streaming replica: a primary and its hot standby started by
scripts/postgres, the site under gunicorn with REPORTS_DATABASE_URL pointed at the standby.

One site for the module, its tests in order: a learner's attempt on the primary reaches the
report once replayed; a paused replay shows as lag, then past REPORTS_MAX_LAG_SECONDS as a
report from the primary; the standby stopped, the reports read from the primary while
learners and /healthz go on, and come back to it once it is back; the standby is never
written to nor migrated.
"""

import html
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.request

import psycopg
import pytest

from bench.bench import Browser, Recorder, take_quiz
from tests.quizsite.servers import (
    GUNICORN,
    PYTHON,
    ROOT,
    ThrowawayPostgres,
    free_port,
    manage,
    site_env,
    wait_for_http,
)

pytestmark = pytest.mark.xdist_group("throwaway-postgres")

QUIZ = "data-parallelism-quiz"
REPORT = f"/en/reports/quizzes/{QUIZ}/"
MAX_LAG = 8  # REPORTS_MAX_LAG_SECONDS of the site: room for a loaded machine's pages
STARTED = re.compile(r"<dt>Attempts started \(at least one answer\)</dt><dd>(\d+)</dd>")
NOTE = re.compile(r'<p class="muted figures-age">([^<]*)</p>')

# Migrated with the replica configured, as `make serve` would (only the primary is), the demo
# loaded, and a superuser signed in by a session of their own: the reports' reader. In one
# process, for speed.
PREPARE = """
from django.core.management import call_command
call_command("migrate", interactive=False, verbosity=0)
call_command("loaddemo", verbosity=0)
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore
user = User.objects.create_superuser("reader", "reader@example.org", None)
session = SessionStore()
session[SESSION_KEY] = str(user.pk)
session[BACKEND_SESSION_KEY] = "quizsite.signin.ThrottledModelBackend"
session[HASH_SESSION_KEY] = user.get_session_auth_hash()
session.create()
print(session.session_key)
"""


def sql(url: str, statement: str) -> list[tuple] | None:
    with psycopg.connect(url.replace("postgres://", "postgresql://"), autocommit=True) as db:
        cursor = db.execute(statement)
        return cursor.fetchall() if cursor.description else None


@pytest.fixture(scope="module")
def cluster():
    server = ThrowawayPostgres()
    server.start()
    try:
        server.run("replica", "start")
        # Every statement the standby runs goes to its log, for the test that it only reads.
        sql(server.replica_url, "ALTER SYSTEM SET log_statement = 'all'")
        sql(server.replica_url, "SELECT pg_reload_conf()")
        yield server
    finally:
        server.run("replica", "stop")
        server.stop()
        shutil.rmtree(server.folder, ignore_errors=True)


@pytest.fixture(scope="module")
def site(cluster, tmp_path_factory):
    folder = tmp_path_factory.mktemp("replica-site")
    port = free_port()
    env = site_env(
        DEBUG="false",
        HTTPS="false",
        SECRET_KEY="replica-test-" + "k" * 50,
        ALLOWED_HOSTS="127.0.0.1",
        DATABASE_URL=cluster.url,
        REPORTS_DATABASE_URL=cluster.replica_url,
        REPORTS_MAX_LAG_SECONDS=str(MAX_LAG),
        HOST="127.0.0.1",
        PORT=str(port),
        STATIC_ROOT=str(folder / "static"),
        # One worker: the one that found the replica down is the one asked next.
        WEB_CONCURRENCY="1",
    )
    collecting = subprocess.Popen(
        [PYTHON, "manage.py", "collectstatic", "--noinput"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    result = manage("shell", "-c", PREPARE, env=env)
    assert result.returncode == 0, result.stderr
    session = result.stdout.strip().splitlines()[-1]
    assert collecting.wait(timeout=120) == 0, collecting.stderr.read()
    gunicorn = subprocess.Popen(
        [GUNICORN, "--config", "gunicorn.conf.py", "quizsite.wsgi"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_http(f"http://127.0.0.1:{port}/healthz")
        yield Site(port, session)
    finally:
        gunicorn.terminate()
        gunicorn.wait(timeout=30)


class Site:
    def __init__(self, port: int, session: str) -> None:
        self.port, self.session = port, session

    def get(self, path: str, *, signed_in: bool = True) -> tuple[int, dict, str, float]:
        """Status, headers, body and seconds taken."""
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}")
        if signed_in:
            request.add_header("Cookie", f"sessionid={self.session}")
        started = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=15) as response:
                status, headers, body = response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            status, headers, body = error.code, error.headers, error.read()
        return status, dict(headers), body.decode("utf-8-sig"), time.monotonic() - started

    def report(self, path: str = REPORT) -> tuple[int, str, str, float]:
        """The number of attempts the report counts, its source header, its note, seconds."""
        status, headers, body, took = self.get(path)
        assert status == 200, body
        note = NOTE.search(body)
        return (
            int(STARTED.search(body).group(1)),
            headers["Quizsite-Reports-Source"],
            html.unescape(note.group(1)) if note else "",
            took,
        )

    def learner_takes_the_quiz(self) -> None:
        """A whole attempt, answered on the primary, as bench/bench.py's learners do."""
        recorder = Recorder()
        learner = Browser("127.0.0.1", self.port, recorder)
        take_quiz(learner, "en", QUIZ, time.monotonic() + 30, scripted=True)
        assert not recorder.errors, recorder.errors

    def wait_for_report(self, condition, seconds: float = 10):
        deadline = time.monotonic() + seconds
        while True:
            shown = self.report()
            if condition(*shown):
                return shown
            assert time.monotonic() < deadline, shown
            time.sleep(0.05)


def lag_of(header: str) -> float:
    return float(re.fullmatch(r"replica; lag=([\d.]+)", header).group(1))


def test_an_attempt_on_the_primary_shows_in_the_report_once_replayed(site):
    before, source, note, _ = site.report()
    assert source.startswith("replica; lag=")
    site.learner_takes_the_quiz()
    done = time.monotonic()
    count, source, note, _ = site.wait_for_report(lambda count, *_: count == before + 1)
    print(f"\nthe attempt in the replica's report {time.monotonic() - done:.3f} s after its answer")
    assert lag_of(source) < 1
    assert note == "Figures as of less than a second ago."
    status, _, french, _ = site.get(f"/fr/reports/quizzes/{QUIZ}/")
    assert "Chiffres arrêtés il y a moins d’une seconde." in french
    # The CSV reads the replica too, and says so.
    status, headers, body, _ = site.get(REPORT + "attempts.csv")
    assert status == 200
    assert headers["Quizsite-Reports-Source"].startswith("replica; lag=")
    assert len(body.strip().splitlines()) == before + 2  # the heading and each attempt


def test_a_replica_behind_says_by_how_much_then_past_the_limit_the_primary_answers(cluster, site):
    before, *_ = site.report()
    sql(cluster.replica_url, "SELECT pg_wal_replay_pause()")
    try:
        site.learner_takes_the_quiz()
        count, source, note, _ = site.wait_for_report(
            lambda count, source, note, _: re.fullmatch(r"Figures as of \d\xa0s ago\.", note)
        )
        print(f"\npaused replay: {source}, {note!r}")
        assert count == before  # not replayed yet
        assert 1 <= lag_of(source) <= MAX_LAG
        status, _, french, _ = site.get(f"/fr/reports/quizzes/{QUIZ}/")
        assert re.search(r"Chiffres arrêtés il y a \d\xa0s\.", french)
        count, source, note, _ = site.wait_for_report(
            lambda count, source, *_: source.startswith("primary"), seconds=MAX_LAG + 10
        )
        assert source == "primary; fallback=behind"
        assert count == before + 1  # the primary's figures are current
        assert note == (
            "Figures as of now: the reports' copy of the database is more than"
            f" {MAX_LAG}\xa0s behind, so they were read from the main database."
        )
    finally:
        sql(cluster.replica_url, "SELECT pg_wal_replay_resume()")
    count, source, *_ = site.wait_for_report(lambda count, source, *_: "replica" in source)
    assert count == before + 1


def test_the_replica_stopped_the_reports_read_the_primary_and_learners_go_on(cluster, site):
    before, *_ = site.report()
    cluster.run("replica", "stop")
    stopped = time.monotonic()
    try:
        count, source, note, took = site.report()
        assert source == "primary; fallback=unreachable"
        assert note == (
            "Figures as of now: the reports' copy of the database can't be reached, so they"
            " were read from the main database."
        )
        assert took < 3, took  # Bounded: the pool's 0.5 s wait, however loaded the machine.
        print(f"\nreplica stopped: the report from the primary in {took * 1000:.0f} ms")
        site.learner_takes_the_quiz()
        assert site.report()[0] == before + 1
        status, _, french, _ = site.get(f"/fr/reports/quizzes/{QUIZ}/")
        assert status == 200
        assert "la copie de la base de données des rapports est injoignable" in french
        for path in ("/en/reports/", REPORT + "attempts/", REPORT + "questions.csv"):
            status, headers, _, _ = site.get(path)
            assert (status, headers["Quizsite-Reports-Source"]) == (
                200,
                "primary; fallback=unreachable",
            )
        status, _, body, took = site.get("/healthz", signed_in=False)
        assert (status, body, took < 1) == (200, "ok\n", True)
        assert site.get(f"/en/quizzes/{QUIZ}/", signed_in=False)[0] == 200
    finally:
        cluster.run("replica", "start")
    # Asked again once its pause is over (quizsite/replica.py), and caught up.
    count, source, *_ = site.wait_for_report(lambda count, source, *_: "replica" in source)
    print(f"back on the replica {time.monotonic() - stopped:.1f} s after it stopped")
    assert count == before + 1


def test_the_replica_was_never_written_to_nor_migrated(cluster, site):
    """Run last: every statement the standby ran, through all the tests above."""
    statements = re.findall(r"LOG:  statement: (\S+)", cluster.replica_log.read_text())
    assert statements, "the reports did not read from the replica"
    # Reads, some through a server-side cursor (the attempts CSV's rows).
    assert {word.upper() for word in statements} <= {"SELECT", "DECLARE", "FETCH", "CLOSE"}
    assert "ERROR" not in cluster.replica_log.read_text()
    # Its schema is the primary's, replicated: the same migrations applied.
    migrations = "SELECT count(*) FROM django_migrations"
    assert sql(cluster.replica_url, migrations) == sql(cluster.url, migrations)
