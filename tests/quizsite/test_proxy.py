"""The proxy in front, for real: Debian's nginx with the configuration `make serve` writes
(`manage.py proxy_config`), gunicorn behind it on a unix socket, as hostile clients see them."""

import re
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from tests.quizsite.servers import GUNICORN, ROOT, free_port, manage, site_env, wait_for_http

NGINX = "/usr/sbin/nginx"  # Debian's, which `make test` installs when it is missing.
# These tests share one site, and time /healthz: they take turns, on one worker.
pytestmark = pytest.mark.xdist_group("proxy")
SLOW_CLIENTS = 100


class Site:
    def __init__(self, folder: Path, port: int) -> None:
        self.folder = folder
        self.port = port
        self.socket = folder / "gunicorn.sock"
        self.uploads = folder / "tmp"  # The temporary folder of gunicorn's workers.
        self.database = folder / "db.sqlite3"
        self.log = folder / "gunicorn.log"
        self.env = site_env(
            DEBUG="false",
            HTTPS="false",
            SECRET_KEY="proxy-test-" + "k" * 50,
            ALLOWED_HOSTS="127.0.0.1",
            DATABASE_URL=f"sqlite:///{self.database}",
            HOST="127.0.0.1",
            PORT=str(port),
            GUNICORN_BIND=f"unix:{self.socket}",
            TRUSTED_PROXY_COUNT="1",
            STATIC_ROOT=str(folder / "static"),
            MEDIA_ROOT=str(folder / "media"),
            TMPDIR=str(self.uploads),
            WEB_CONCURRENCY="2",
            GUNICORN_CMD_ARGS=f"--access-logfile {self.log} --error-logfile {self.log}",
        )

    def gunicorn_log(self) -> str:
        """gunicorn's log up to now: up to a request sent through the proxy last, which is in it
        once gunicorn has written its line (after its response)."""
        marker = f"/healthz?marker={time.monotonic_ns()}"
        assert head_of(self.request(get(marker)))[0] == 200
        self.logged(marker)
        return self.log.read_text()

    def logged(self, line: str) -> bool:
        """Whether gunicorn writes this line within 5 s: a worker writes its access line after
        its response, so the proxy may have answered, and another worker logged a later
        request, before it does."""
        deadline = time.monotonic() + 5
        while line not in self.log.read_text():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def request(self, raw: bytes, source="127.0.0.1", timeout=10, head_only=False) -> bytes:
        """Send a request as it is and read the whole answer, from a given loopback address;
        head_only reads its status and headers: after a refused body cut short, nginx waits
        5 s for the rest before it closes (lingering_timeout)."""
        with socket.create_connection(
            ("127.0.0.1", self.port), timeout=timeout, source_address=(source, 0)
        ) as sock:
            sock.sendall(raw)
            if head_only:
                return sock.recv(65536)
            return read_all(sock)


def read_all(sock: socket.socket) -> bytes:
    """The answer, up to the server's close, or its reset once it refused the rest of a body."""
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            assert chunks, "reset before any answer"
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def get(path: str, headers: str = "") -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}Connection: close\r\n\r\n".encode()


def head_of(response: bytes) -> tuple[int, str]:
    head = response.split(b"\r\n\r\n", 1)[0].decode()
    return int(head.split()[1]), head


@pytest.fixture(scope="module")
def site():
    # A short path: a unix socket's must fit in 108 bytes.
    folder = Path(tempfile.mkdtemp(prefix="qs-proxy-"))
    folder.chmod(0o755)  # Run as root, nginx's workers are nobody: they must reach the files.
    site = Site(folder, free_port())
    site.uploads.mkdir()
    for command in (["migrate", "--noinput"], ["collectstatic", "--noinput"]):
        result = manage(*command, env=site.env)
        assert result.returncode == 0, result.stderr
    config = manage("proxy_config", env=site.env)
    assert config.returncode == 0, config.stderr
    prefix = folder / "nginx"
    for path in (prefix / "logs", prefix / "temp", folder / "media" / "content"):
        path.mkdir(parents=True)
    (prefix / "nginx.conf").write_text(config.stdout)
    (folder / "media" / "content" / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    gunicorn = subprocess.Popen(
        [GUNICORN, "--config", "gunicorn.conf.py", "quizsite.wsgi"],
        cwd=ROOT,
        env=site.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    nginx = subprocess.Popen(
        [NGINX, "-p", f"{prefix}/", "-c", "nginx.conf", "-e", "logs/error.log"]
        + ["-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_http(f"http://127.0.0.1:{site.port}/healthz")
        yield site
    finally:
        for process in (nginx, gunicorn):
            process.terminate()
            process.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)


def healthz_seconds(site: Site) -> float:
    started = time.monotonic()
    status, _ = head_of(site.request(get("/healthz"), timeout=5))
    assert status == 200
    return time.monotonic() - started


def test_healthz_answers_within_a_second_while_slow_clients_hold_connections(site):
    # Each sends its request's header one byte every 2 s: alone, two of them would hold both of
    # gunicorn's workers for its 30 s timeout.
    header = b"GET /en/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"x" * 100
    slow = [socket.create_connection(("127.0.0.1", site.port)) for _ in range(SLOW_CLIENTS)]
    stop = threading.Event()

    def drip() -> None:
        position = 0
        while not stop.is_set():
            for sock in slow:
                sock.send(header[position : position + 1])
            position += 1
            stop.wait(2)

    dripping = threading.Thread(target=drip)
    dripping.start()
    try:
        waits = []
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            waits.append(healthz_seconds(site))
            time.sleep(0.2)
    finally:
        stop.set()
        dripping.join()
        for sock in slow:
            sock.close()
    assert len(waits) >= 10
    assert max(waits) < 1, waits
    assert "X-Slow" not in site.gunicorn_log()


def test_a_body_over_the_pages_limit_gets_a_413_from_the_proxy_and_never_reaches_django(site):
    learner_page = (
        "POST /en/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 1073741824\r\n\r\n"
    )
    response = site.request(learner_page.encode() + b"--b\r\n" + b"x" * 65536, head_only=True)
    status, head = head_of(response)
    assert status == 413
    assert "Server: nginx" in head
    # A body sent in chunks, with no length to refuse it by, is refused once it grows past it.
    chunk = b"%x\r\n%s\r\n" % (65536, b"x" * 65536)
    chunked = (
        b"POST /en/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n" + chunk * 8 + b"0\r\n\r\n"
    )
    assert head_of(site.request(chunked))[0] == 413
    assert "POST /en/" not in site.gunicorn_log()
    assert list(site.uploads.iterdir()) == []
    # The import page takes more: its 1 MB reaches Django, which refuses the missing CSRF token.
    import_page = (
        "POST /admin/quizzes/quiz/import/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1048576\r\n\r\n"
    )
    assert head_of(site.request(import_page.encode() + b"a" * 1048576))[0] == 403
    assert site.logged('"POST /admin/quizzes/quiz/import/ HTTP/1.0" 403')


def test_without_the_proxy_django_refuses_the_body_by_its_length_and_writes_nothing(site):
    """A 1 GB upload sent to gunicorn directly: a 413 page at once, no temporary file (the
    first 64 KB of the file, which Django would have written to one, were sent)."""
    request = (
        b"POST /fr/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        b"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 1073741824\r\n\r\n"
        b'--b\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n'
    )
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(10)
        sock.connect(str(site.socket))
        sock.sendall(request + b"x" * 65536)
        response = read_all(sock)
    status, _ = head_of(response)
    assert status == 413
    assert "au plus 256,0\xa0Kio" in response.decode()
    assert list(site.uploads.iterdir()) == []
    assert site.logged("refused a body of 1073741824 bytes for POST /fr/ (limit 262144)")


def test_django_sees_the_clients_address_and_not_one_it_forged(site):
    """A failed sign-in is counted against the address nginx saw it come from (127.0.0.2 here),
    not REMOTE_ADDR (gunicorn's unix socket has none) nor what the client wrote further left in
    X-Forwarded-For."""
    forged = "X-Forwarded-For: 203.0.113.9\r\n"
    page = site.request(get("/en/accounts/login/", forged), source="127.0.0.2").decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
    cookie = re.search(r"Set-Cookie: (csrftoken=[^;]+)", page)[1]
    form = f"csrfmiddlewaretoken={token}&username=ada&password=wrong"
    sign_in = (
        "POST /en/accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        f"{forged}Cookie: {cookie}\r\nReferer: http://127.0.0.1:{site.port}/en/accounts/login/\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\n"
        f"Content-Length: {len(form)}\r\n\r\n{form}"
    )
    assert head_of(site.request(sign_in.encode(), source="127.0.0.2"))[0] == 200
    with sqlite3.connect(site.database) as database:
        addresses = database.execute("SELECT ip_address FROM axes_accessattempt").fetchall()
    assert addresses == [("127.0.0.2",)]


def test_static_files_and_images_come_from_the_proxy_with_cache_headers(site):
    hashed = next((site.folder / "static" / "quizsite").glob("site.????????????.css")).name
    response = site.request(get(f"/static/quizsite/{hashed}", "Accept-Encoding: gzip\r\n"))
    status, head = head_of(response)
    assert status == 200
    assert "Cache-Control: public, max-age=31536000, immutable" in head
    assert "Content-Encoding: gzip" in head  # WhiteNoise's compressed copy.
    assert "X-Content-Type-Options: nosniff" in head
    status, head = head_of(site.request(get("/media/content/picture.png")))
    assert status == 200
    assert "Content-Type: image/png" in head
    assert "Cache-Control: public, max-age=31536000, immutable" in head
    assert "/static/" not in site.gunicorn_log()
    assert "/media/" not in site.gunicorn_log()
