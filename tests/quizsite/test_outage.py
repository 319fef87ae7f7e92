"""PostgreSQL goes down under a running gunicorn, then comes back: a real server, for real."""

import shutil
import subprocess
import threading
import time
import urllib.error
import urllib.request

import psycopg
import pytest

from bench.bench import Browser, Failure, Recorder, percentile, take_quiz
from tests.quizsite.servers import (
    GUNICORN,
    ROOT,
    ThrowawayPostgres,
    free_port,
    manage,
    site_env,
    wait_for_http,
)

# The timings below want the machine to themselves as far as they can have it: these tests take
# turns, on one worker.
pytestmark = pytest.mark.xdist_group("throwaway-postgres")


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=15) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@pytest.fixture
def postgres():
    server = ThrowawayPostgres()
    server.start()
    yield server
    server.stop()
    shutil.rmtree(server.folder, ignore_errors=True)


@pytest.fixture
def site_log(tmp_path):
    """gunicorn's log file, written as `make serve` writes var/gunicorn.log."""
    return tmp_path / "gunicorn.log"


@pytest.fixture
def site(postgres, site_log, tmp_path):
    port = free_port()
    env = site_env(
        DEBUG="false",
        HTTPS="false",
        SECRET_KEY="outage-test-" + "k" * 50,
        ALLOWED_HOSTS="127.0.0.1",
        DATABASE_URL=postgres.url,
        HOST="127.0.0.1",
        PORT=str(port),
        # Its own collected files: another process collecting into var/static at the same time
        # deletes the files this one has just written.
        STATIC_ROOT=str(tmp_path / "static"),
        WEB_CONCURRENCY="3",
        GUNICORN_CMD_ARGS=f"--access-logfile {site_log} --error-logfile {site_log}",
    )
    for command in (["migrate", "--noinput"], ["loaddemo"], ["collectstatic", "--noinput"]):
        result = manage(*command, env=env)
        assert result.returncode == 0, result.stderr
    gunicorn = subprocess.Popen(
        [GUNICORN, "--config", "gunicorn.conf.py", "quizsite.wsgi"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_http(f"http://127.0.0.1:{port}/healthz")
        yield f"http://127.0.0.1:{port}"
    finally:
        gunicorn.terminate()
        gunicorn.wait(timeout=30)


def test_learner_pages_say_503_while_postgres_is_down_and_recover_without_restart(postgres, site):
    quiz_page = f"{site}/fr/quizzes/data-parallelism-quiz/"
    assert get(quiz_page)[0] == 200
    assert get(f"{site}/healthz") == (200, "ok\n")

    postgres.stop()
    status, page = get(quiz_page)
    assert status == 503
    assert "Temporairement indisponible" in page
    assert "Vos réponses déjà enregistrées sont en sécurité" in page
    status, page = get(f"{site}/en/")
    assert status == 503
    assert "Temporarily unavailable" in page
    assert get(f"{site}/healthz")[0] == 503

    postgres.start()
    deadline = time.monotonic() + 20
    while get(quiz_page)[0] != 200:
        assert time.monotonic() < deadline, "the site did not recover on its own"
        time.sleep(0.5)
    # Each of the three workers reconnects on its own first request after the return.
    while get(f"{site}/healthz") != (200, "ok\n"):
        assert time.monotonic() < deadline, "a worker did not recover on its own"
        time.sleep(0.2)


def test_an_error_in_a_worker_reaches_the_log_with_its_traceback_method_and_path(
    postgres, site, site_log
):
    """A table gone from under the site is an error the app doesn't catch: a real 500."""
    quiz_page = f"{site}/en/quizzes/data-parallelism-quiz/"
    assert get(quiz_page)[0] == 200
    with psycopg.connect(postgres.url.replace("postgres://", "postgresql://")) as connection:
        connection.execute("ALTER TABLE quizzes_quiz RENAME TO quizzes_quiz_gone")
    try:
        status, page = get(quiz_page)
    finally:
        with psycopg.connect(postgres.url.replace("postgres://", "postgresql://")) as connection:
            connection.execute("ALTER TABLE quizzes_quiz_gone RENAME TO quizzes_quiz")
    assert status == 500
    assert "The error has been logged" in page
    log = site_log.read_text()
    assert "ERROR django.request [GET /en/quizzes/data-parallelism-quiz/]" in log
    assert "Traceback (most recent call last)" in log
    assert 'psycopg.errors.UndefinedTable: relation "quizzes_quiz" does not exist' in log


class TimedBrowser(Browser):
    """A bench learner that also notes when each of its requests started, took and got."""

    def __init__(self, port: int, recorder: Recorder, log: list) -> None:
        super().__init__("127.0.0.1", port, recorder)
        self.log = log

    def request(self, kind, method, path, form=None, accept=None):
        started = time.monotonic()
        try:
            status, location, content = super().request(kind, method, path, form, accept)
        except Failure:
            self.log.append((kind, started, time.monotonic() - started, None))
            raise
        self.log.append((kind, started, time.monotonic() - started, status))
        return status, location, content


def ms(seconds: list[float], fraction: float) -> str:
    return f"{percentile(seconds, fraction) * 1000:.0f} ms" if seconds else "none"


def test_503s_are_fast_under_16_learners_and_the_site_recovers_within_2_s(postgres, site):
    """16 learners take the demo quiz as in bench/bench.py while PostgreSQL stops for 5 s."""
    port = int(site.rsplit(":", 1)[1])
    recorder, log, health = Recorder(), [], []
    stop = threading.Event()

    def learn(lang: str) -> None:
        browser = TimedBrowser(port, recorder, log)
        while not stop.is_set():
            try:
                deadline = time.monotonic() + 60
                # Half of them with the page's script: one request an answer.
                take_quiz(browser, lang, "data-parallelism-quiz", deadline, lang == "fr")
            except Failure:
                time.sleep(0.05)

    def probe() -> None:
        while not stop.is_set():
            started = time.monotonic()
            status = get(f"{site}/healthz")[0]
            health.append((started, time.monotonic() - started, status))
            time.sleep(0.1)

    threads = [threading.Thread(target=learn, args=("fr" if n % 2 else "en",)) for n in range(16)]
    threads.append(threading.Thread(target=probe))
    for thread in threads:
        thread.start()
    try:
        time.sleep(3)
        postgres.stop()
        down = time.monotonic()
        time.sleep(5)
        starting = time.monotonic()  # From here it may answer before start() returns.
        postgres.start()
        up = time.monotonic()
        time.sleep(5)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)

    during = [entry for entry in log if down <= entry[1] < up]
    unavailable = sorted(took for _kind, _at, took, status in during if status == 503)
    health_down = sorted(took for at, took, status in health if down <= at < up)
    refused_after = [at + took for _kind, at, took, status in log if status == 503 and at >= up]
    recovery = max(refused_after, default=up) - up
    errors = [entry for entry in log if entry[3] not in {200, 302, 503}]
    acknowledged = dict(recorder.submitted)
    with psycopg.connect(postgres.url.replace("postgres://", "postgresql://")) as connection:
        found = dict(
            connection.execute(
                "SELECT t.public_id::text, count(*) FROM quizzes_answer a"
                " JOIN quizzes_attempt t ON t.id = a.attempt_id GROUP BY t.public_id"
            ).fetchall()
        )
    slowest = max((took for _kind, _at, took, _status in during), default=0.0)
    print(
        f"\noutage: {len(log)} learner requests, {len(during)} sent while PostgreSQL was down,"
        f" {len(unavailable)} answered 503 in p50 {ms(unavailable, 0.5)}, p99"
        f" {ms(unavailable, 0.99)}, slowest {slowest * 1000:.0f} ms;"
        f" /healthz while down: {len(health_down)} probes, p99 {ms(health_down, 0.99)};"
        f" recovered {recovery:.2f} s after PostgreSQL was back;"
        f" answers acknowledged {sum(acknowledged.values())},"
        f" found {sum(found.get(a, 0) for a in acknowledged)};"
        f" other outcomes {len(errors)}"
    )
    # The target is a 503 within 1 s (p99; about 0.5 s on an idle machine, the pool's wait):
    # the bounds leave room for a loaded machine, and still fail on what they guard against,
    # a worker waiting out a connection timeout (3 s) or the pool's retries.
    assert len(unavailable) > 50
    assert percentile(unavailable, 0.99) < 2.0
    assert slowest < 3.0  # No worker stuck.
    assert health_down and percentile(health_down, 0.99) < 2.0
    answered = [(round(at - down, 2), status) for at, _took, status in health if status != 503]
    assert not [(at, status) for at, status in answered if 0.1 <= at < starting - down], answered
    assert recovery < 2.0
    assert not errors
    assert all(found.get(attempt, 0) >= n for attempt, n in acknowledged.items())
