"""A classroom on one laptop: 16 learners at once on `make run`'s server and SQLite."""

import subprocess

import pytest

from tests.quizsite.servers import PYTHON, ROOT, free_port, manage, site_env, wait_for_http


@pytest.fixture
def runserver(tmp_path):
    port = free_port()
    env = site_env(
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        # Its learners start an attempt every few steps: `make bench` lifts the limit too.
        ATTEMPT_STARTS_PER_LEARNER_PER_HOUR="1000000000",
        ATTEMPT_STARTS_PER_ADDRESS_PER_HOUR="1000000000",
    )
    for command in (["migrate", "--noinput"], ["loaddemo"]):
        result = manage(*command, env=env)
        assert result.returncode == 0, result.stderr
    server = subprocess.Popen(
        [PYTHON, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_http(f"http://127.0.0.1:{port}/healthz")
        yield f"http://127.0.0.1:{port}", env
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_sixteen_concurrent_learners_on_sqlite_get_no_error_and_lose_no_answer(runserver):
    url, env = runserver
    bench = [PYTHON, "bench/bench.py", "--url", url, "--learners", "16"]
    result = subprocess.run(
        [*bench, "--seconds", "4", "--health-seconds", "1"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "errors                     0" in result.stdout
    assert " 0 lost, 0 extra" in result.stdout
