"""Real servers for the tests that need one: the site in a subprocess, a throwaway PostgreSQL
and Redis."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
PYTHON = sys.executable
GUNICORN = str(Path(sys.executable).parent / "gunicorn")
NGINX = "/usr/sbin/nginx"  # Debian's, which `make test` installs when it is missing.
REDIS_SERVER = "/usr/bin/redis-server"  # Debian's, the same.


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [PYTHON, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def site_env(**variables: str) -> dict[str, str]:
    """The environment of a process with only the given settings (nothing from the test run)."""
    keep = {"PATH", "HOME", "LANG", "QUIZSITE_PG_PORT"}
    return {k: v for k, v in os.environ.items() if k in keep} | variables


def wait_for_http(url: str) -> None:
    subprocess.run([PYTHON, "scripts/wait_for_http.py", url, "30"], cwd=ROOT, check=True)


class ThrowawayPostgres:
    """A PostgreSQL cluster of its own, on a free port, so that stopping it leaves the
    suite's own database alone; and its streaming replica (`scripts/postgres replica …`) when
    asked, on another."""

    def __init__(self) -> None:
        self.port = free_port()
        self.replica_port = free_port()
        # A folder of its own too: one a previous test stopped or killed a cluster in can keep
        # its postmaster.pid, which the next start takes for a server still running.
        self.folder = ROOT / "var" / f"postgres-throwaway-{self.port}"
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/quizsite"
        self.replica_url = f"postgres://postgres@127.0.0.1:{self.replica_port}/quizsite"
        self.replica_log = self.folder / "replica" / "server.log"

    def run(self, *command: str) -> None:
        env = os.environ | {
            "QUIZSITE_PG_PORT": str(self.port),
            "QUIZSITE_PG_DIR": str(self.folder),
            "QUIZSITE_PG_REPLICA_PORT": str(self.replica_port),
        }
        subprocess.run(["scripts/postgres", *command], cwd=ROOT, env=env, check=True, timeout=120)

    def start(self) -> None:
        self.run("start")

    def stop(self) -> None:
        self.run("stop")


class ThrowawayRedis:
    """Debian's redis-server on a free port, memory only, which a test may stop and start."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
            + ["--appendonly", "no", "--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru"],
            cwd=self.folder,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None
