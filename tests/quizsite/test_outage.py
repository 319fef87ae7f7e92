"""PostgreSQL goes down under a running gunicorn, then comes back: a real server, for real."""

import shutil
import subprocess
import time
import urllib.error
import urllib.request

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
def site(postgres):
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
