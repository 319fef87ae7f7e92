"""PostgreSQL goes down under a running gunicorn, then comes back: a real server, for real."""

import shutil
import subprocess
import time
import urllib.error
import urllib.request

import psycopg
import pytest

from .servers import GUNICORN, ROOT, ThrowawayPostgres, free_port, manage, site_env, wait_for_http


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
def site(postgres, site_log):
    port = free_port()
    env = site_env(
        DEBUG="false",
        HTTPS="false",
        SECRET_KEY="outage-test-" + "k" * 50,
        ALLOWED_HOSTS="127.0.0.1",
        DATABASE_URL=postgres.url,
        HOST="127.0.0.1",
        PORT=str(port),
        WEB_CONCURRENCY="1",
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
    assert get(f"{site}/healthz") == (200, "ok\n")


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
