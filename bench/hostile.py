"""A hostile visitor against a running site (issue 26): slow clients and oversized bodies.

    python bench/hostile.py --url http://127.0.0.1:8000 --watch var/tmp --watch var/nginx/temp \
        --pidfile var/gunicorn.pid --pidfile var/nginx/nginx.pid

Three probes, one after the other:

- slowloris: COUNT connections (3, then 100) each send a request's header one byte every 2 s
  while /healthz is asked every half second: how many of those answers came within 1 s, and
  the longest wait;
- a 1 GB multipart POST to a learner page, sent as fast as the server takes it: how many MB
  were sent before the server refused it, how long that took, and the most the upload put in
  the watched folders (the temporary folder of the site's processes, nginx's body buffers);
- a stalled upload: 10 MB of a body, then nothing, to the learner page (100 MB in all) and to
  the admin's import page (40 MB, under its limit): the most in the watched folders during
  the stall, when the server dropped the connection, and what it left behind.

Run it against `make serve` (nginx in front; `make serve EXTRA_ENV=TMPDIR=$PWD/var/tmp` gives
gunicorn a temporary folder of its own to watch) or against gunicorn alone, to compare.
"""

import argparse
import os
import select
import socket
import sys
import threading
import time
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlsplit

MB = 2**20
BOUNDARY = "hostile-boundary"


def connect(host: str, port: int, timeout: float = 10) -> socket.socket:
    return socket.create_connection((host, port), timeout=timeout)


def healthz(host: str, port: int, timeout: float) -> float | None:
    """Seconds until /healthz's status line came back, None if it did not within timeout."""
    started = time.monotonic()
    try:
        with connect(host, port, timeout) as sock:
            request = f"GET /healthz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
            sock.sendall(request.encode())
            if not sock.recv(12).startswith(b"HTTP/1.1 200"):
                return None
    except OSError:
        return None
    return time.monotonic() - started


def family(pidfiles: list[Path]) -> list[int]:
    """The processes of some pid files (gunicorn's master, nginx's) and their children."""
    parents = {int(p.read_text().split()[0]) for p in pidfiles if p.exists()}
    found = set(parents)
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) in parents:
                found.add(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            pass
    return sorted(found)


def deleted_open_bytes(pids: list[int]) -> int:
    """The size of the files these processes hold open after deleting them: nginx deletes its
    body buffers as it creates them, so no folder shows them."""
    total = 0
    for pid in pids:
        for fd in Path(f"/proc/{pid}/fd").glob("*"):
            try:
                if os.readlink(fd).endswith(" (deleted)") and fd.stat().st_size:
                    total += fd.stat().st_size
            except OSError:
                pass
    return total


class Watch(NamedTuple):
    folders: list[Path]  # The temporary folder of the site's processes, nginx's.
    pidfiles: list[Path]  # Their processes, for the deleted files they hold open.


class Folders:
    """The most bytes ever seen in files under some folders (with the deleted files the
    processes of some pid files hold open), sampled every 50 ms."""

    def __init__(self, watch: Watch) -> None:
        self.folders = watch.folders
        self.pids = family(watch.pidfiles)
        self.peak = 0
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.sample, daemon=True)

    def size(self) -> int:
        total = 0
        for folder in self.folders:
            for path in folder.rglob("*"):
                try:
                    total += path.stat().st_size if path.is_file() else 0
                except OSError:
                    pass
        return total + deleted_open_bytes(self.pids)

    def sample(self) -> None:
        while not self.stopped.wait(0.05):
            self.peak = max(self.peak, self.size())

    def __enter__(self):
        self.baseline = self.size()
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopped.set()
        self.thread.join()

    def peak_mb(self) -> float:
        return max(0, self.peak - self.baseline) / MB

    def now_mb(self) -> float:
        return max(0, self.size() - self.baseline) / MB


def slowloris(host: str, port: int, count: int, seconds: float) -> None:
    header = f"GET /en/ HTTP/1.1\r\nHost: {host}\r\nUser-Agent: slow\r\nX-a: {'b' * 200}".encode()
    sockets = []
    for _ in range(count):
        try:
            sockets.append(connect(host, port, 5))
        except OSError:
            break
    stop = threading.Event()

    def drip() -> None:
        position = 0
        while not stop.wait(2) and position < len(header):
            for sock in list(sockets):
                try:
                    sock.send(header[position : position + 1])
                except OSError:
                    sockets.remove(sock)
            position += 1

    dripping = threading.Thread(target=drip, daemon=True)
    dripping.start()
    waits, deadline = [], time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.monotonic()
        waits.append(healthz(host, port, timeout=35))
        time.sleep(max(0.0, 0.5 - (time.monotonic() - started)))
    stop.set()
    dripping.join()
    still_open = len(sockets)
    for sock in sockets:
        sock.close()
    answered = [w for w in waits if w is not None]
    quick = sum(1 for w in answered if w <= 1)
    longest = f"{max(answered):.2f} s" if answered else "none answered"
    print(
        f"slowloris, {count} connections ({still_open} still open at the end), {seconds:.0f} s: "
        f"/healthz within 1 s {quick} of {len(waits)} times, longest {longest}"
    )


def multipart_head(host: str, path: str, total: int) -> tuple[bytes, bytes]:
    """A POST's header and its body's first part, for a file field of `total` bytes in all."""
    opening = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n"
        f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n"
        f"Content-Length: {total}\r\n\r\n"
    ).encode()
    return head, opening


def status_of(sock: socket.socket) -> str:
    try:
        line = sock.recv(4096).split(b"\r\n", 1)[0].decode(errors="replace")
    except OSError as error:
        return f"no answer ({error.__class__.__name__})"
    return line or "connection closed without an answer"


def big_upload(host: str, port: int, path: str, size: int, watch: Watch) -> None:
    head, opening = multipart_head(host, path, size)
    chunk = b"x" * MB
    sent = 0
    started = time.monotonic()
    with Folders(watch) as watched, connect(host, port) as sock:
        sock.sendall(head + opening)
        sock.setblocking(False)
        status = None
        while sent < size - len(opening) and status is None:
            readable, writable, _ = select.select([sock], [sock], [], 35)
            if readable:
                sock.setblocking(True)
                status = status_of(sock)
            elif writable:
                try:
                    sent += sock.send(chunk)
                except BlockingIOError:
                    continue
                except OSError as error:
                    status = f"connection ended ({error.__class__.__name__})"
            else:
                status = "no progress for 35 s"
        if status is None:
            sock.setblocking(True)
            sock.settimeout(35)
            status = status_of(sock)
        elapsed = time.monotonic() - started
        time.sleep(0.5)
    print(
        f"1 GB upload to {path}: {status!r} after {elapsed:.2f} s, {sent / MB:.0f} MB sent, "
        f"at most {watched.peak_mb():.0f} MB in the watched folders, "
        f"{watched.now_mb():.0f} MB left there"
    )


def stalled_upload(host, port, path: str, total: int, watch: Watch, wait: float) -> None:
    sent_part = 10 * MB
    head, opening = multipart_head(host, path, total)
    with Folders(watch) as watched, connect(host, port, timeout=wait) as sock:
        started = time.monotonic()
        try:
            sock.sendall(head + opening + b"x" * (sent_part - len(opening)))
        except OSError as error:
            print(f"stalled upload to {path}: refused while sending ({error.__class__.__name__})")
            return
        status = status_of(sock)
        closed = time.monotonic() - started
        during = watched.peak_mb()
        time.sleep(1)
        print(
            f"stalled upload to {path} (10 of {total // MB} MB sent, then nothing): {status!r} "
            f"after {closed:.1f} s, at most {during:.0f} MB in the watched folders, "
            f"{watched.now_mb():.0f} MB left there a second later"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--path", default="/en/", help="the learner page the uploads go to")
    parser.add_argument("--watch", type=Path, action="append", default=[], help="a folder")
    parser.add_argument("--seconds", type=float, default=40, help="each slowloris run")
    parser.add_argument("--stall", type=float, default=60, help="the most a stall waits")
    parser.add_argument("--import-path", default="/admin/quizzes/quiz/import/")
    parser.add_argument(
        "--pidfile", type=Path, action="append", default=[], help="count its deleted files too"
    )
    parser.add_argument("--connections", type=int, action="append", help="default 3 and 100")
    parser.add_argument(
        "--probe", choices=["slowloris", "upload", "stall"], action="append", help="default all"
    )
    arguments = parser.parse_args()
    url = urlsplit(arguments.url)
    watch = Watch(arguments.watch, arguments.pidfile)
    host, port = url.hostname, url.port or 80
    for folder in arguments.watch:
        folder.mkdir(parents=True, exist_ok=True)
    print(f"against {arguments.url}, watching {', '.join(map(str, arguments.watch)) or 'nothing'}")
    probes = arguments.probe or ["slowloris", "upload", "stall"]
    if "slowloris" in probes:
        for count in arguments.connections or [3, 100]:
            slowloris(host, port, count, arguments.seconds)
            time.sleep(2)
    if "upload" in probes:
        big_upload(host, port, arguments.path, 1024 * MB, watch)
        time.sleep(2)
    if "stall" in probes:
        for path, total in ((arguments.path, 100 * MB), (arguments.import_path, 40 * MB)):
            stalled_upload(host, port, path, total, watch, arguments.stall)
    return 0


if __name__ == "__main__":
    sys.exit(main())
