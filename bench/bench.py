"""Closed-loop load benchmark: simulated learners take the demo quiz over real HTTP.

Each learner is a thread with its own cookies (learner key, CSRF token), as a browser has: it
opens the quiz page, starts an attempt, and for every question loads it, posts an answer
(with the form's CSRF token) and loads the feedback, then the results, then starts again,
sending each request as soon as the last one is answered, until the time is up. Before
and after that, as many clients ask /healthz for a few seconds: the same server's ceiling,
to compare (measured on both sides, as other work on the machine may come and go).
Afterwards the answers in the database are checked against the submissions that succeeded.
"""

import argparse
import http.client
import ipaddress
import os
import re
import socket
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlsplit

KINDS = ("quiz page", "start", "question", "answer", "feedback", "results")
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
CHOICE = re.compile(r'name="choice" value="(\d+)"')
ATTEMPT = re.compile(r"/attempts/([0-9a-f-]{36})/questions/1/$")


class Failure(Exception):
    pass


class Recorder:
    """Latencies and errors per kind of request, from every thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, list[str]] = defaultdict(list)
        self.submitted: dict[str, int] = defaultdict(int)  # attempt id -> answers accepted
        self.steps = 0

    def timing(self, kind: str, seconds: float) -> None:
        with self.lock:
            self.latencies[kind].append(seconds)

    def error(self, kind: str, message: str) -> None:
        with self.lock:
            self.errors[kind].append(message)

    def answered(self, attempt: str) -> None:
        with self.lock:
            self.submitted[attempt] += 1
            self.steps += 1


class Browser:
    """One learner's cookies, over a fresh connection per request as gunicorn's sync workers
    close them anyway."""

    def __init__(self, host: str, port: int, recorder: Recorder) -> None:
        self.host, self.port, self.recorder = host, port, recorder
        self.cookies: dict[str, str] = {}

    def request(self, kind: str, method: str, path: str, form: dict | None = None):
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        body = None
        if form is not None:
            body = "&".join(f"{k}={v}" for k, v in form.items())
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        connection = http.client.HTTPConnection(self.host, self.port, timeout=10)
        started = time.perf_counter()
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            content = response.read().decode()
        except (OSError, http.client.HTTPException) as error:
            self.recorder.error(kind, f"{type(error).__name__}: {error}")
            raise Failure from error
        finally:
            connection.close()
        self.recorder.timing(kind, time.perf_counter() - started)
        for header in response.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                self.cookies[name] = morsel.value
        return response.status, response.headers.get("Location", ""), content

    def expect(self, kind, status, method, path, form=None):
        got, location, content = self.request(kind, method, path, form)
        if got != status:
            self.recorder.error(kind, f"HTTP {got} for {method} {path}")
            raise Failure
        return location, content


def take_quiz(browser: Browser, lang: str, slug: str, deadline: float) -> None:
    recorder = browser.recorder
    _, page = browser.expect("quiz page", 200, "GET", f"/{lang}/quizzes/{slug}/")
    token = CSRF.search(page).group(1)
    location, _ = browser.expect(
        "start", 302, "POST", f"/{lang}/quizzes/{slug}/start/", {"csrfmiddlewaretoken": token}
    )
    attempt = ATTEMPT.search(location).group(1)
    number = 1
    while time.monotonic() < deadline:
        path = f"/{lang}/attempts/{attempt}/questions/{number}/"
        _, page = browser.expect("question", 200, "GET", path)
        if (choice := CHOICE.search(page)) is not None:  # Else answered before, and resumed.
            form = {"csrfmiddlewaretoken": CSRF.search(page).group(1), "choice": choice.group(1)}
            browser.expect("answer", 302, "POST", path, form)
            recorder.answered(attempt)
            _, page = browser.expect("feedback", 200, "GET", path)
        if f"/questions/{number + 1}/" not in page:
            browser.expect("results", 200, "GET", f"/{lang}/attempts/{attempt}/results/")
            return
        number += 1


def learner(host, port, recorder, lang, slug, deadline) -> None:
    browser = Browser(host, port, recorder)
    while time.monotonic() < deadline:
        try:
            take_quiz(browser, lang, slug, deadline)
        except Failure:
            time.sleep(0.05)


def health_client(host, port, deadline, counts: list[int], index: int) -> None:
    while time.monotonic() < deadline:
        connection = http.client.HTTPConnection(host, port, timeout=10)
        try:
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                counts[index] += 1
        except (OSError, http.client.HTTPException):
            pass
        finally:
            connection.close()


def run_threads(worker: Callable[[float, int], None], count: int, seconds: float) -> float:
    """Run `count` workers, each called with the deadline and its number; the time it took."""
    deadline = time.monotonic() + seconds
    threads = [threading.Thread(target=worker, args=(deadline, i)) for i in range(count)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + 30)
    return time.monotonic() - started


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def stored_answers(attempts: list[str]) -> dict[str, int]:
    """Answers in the database per attempt, read with the site's own settings."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quizsite.settings")
    os.environ.setdefault("DATABASE_POOL", "false")
    import django

    django.setup()
    from django.db.models import Count

    from quizzes.models import Answer

    rows = (
        Answer.objects.filter(attempt__public_id__in=attempts)
        .values_list("attempt__public_id")
        .annotate(n=Count("pk"))
    )
    return {str(public_id): n for public_id, n in rows}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--learners", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20, help="learners' phase")
    parser.add_argument("--health-seconds", type=float, default=6, help="before and after, in all")
    parser.add_argument("--quiz", default="data-parallelism-quiz")
    parser.add_argument("--lang", default="en")
    args = parser.parse_args()

    url = urlsplit(args.url)
    host = url.hostname or ""
    address = socket.getaddrinfo(host, None)[0][4][0]
    if url.scheme != "http" or not ipaddress.ip_address(address).is_loopback:
        print(f"bench: {args.url} is not http:// on a loopback address; refusing.", file=sys.stderr)
        return 2
    port = url.port or 80

    def health_rps() -> float:
        counts = [0] * args.learners
        elapsed = run_threads(
            lambda deadline, i: health_client(host, port, deadline, counts, i),
            args.learners,
            args.health_seconds / 2,
        )
        return sum(counts) / elapsed

    health_before = health_rps()
    recorder = Recorder()
    elapsed = run_threads(
        lambda deadline, _: learner(host, port, recorder, args.lang, args.quiz, deadline),
        args.learners,
        args.seconds,
    )
    health_after = health_rps()
    health = (health_before + health_after) / 2
    requests = sum(len(v) for v in recorder.latencies.values())
    rps = requests / elapsed
    steps_ps = recorder.steps / elapsed

    print(f"{args.learners} learners, closed loop, {elapsed:.1f} s against {args.url}")
    print(f"{'request':<10} {'count':>7} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'errors':>7}")
    for kind in KINDS:
        values = recorder.latencies.get(kind, [])
        if values:
            p50, p95, p99 = (1000 * percentile(values, f) for f in (0.50, 0.95, 0.99))
            row = f"{p50:>8.1f} {p95:>8.1f} {p99:>8.1f}"
        else:
            row = f"{'-':>8} {'-':>8} {'-':>8}"
        print(f"{kind:<10} {len(values):>7} {row} {len(recorder.errors.get(kind, [])):>7}")
    errors = sum(len(v) for v in recorder.errors.values())
    print(f"learner requests/s  {rps:8.1f}")
    print(f"quiz steps/s        {steps_ps:8.1f}   (load a question, answer it, see the feedback)")
    print(
        f"/healthz requests/s {health:8.1f}   (same server, {args.learners} clients: "
        f"{health_before:.0f} before, {health_after:.0f} after)"
    )
    print(f"ratio               {rps / health:8.2f}   (target: at least 0.25)")
    print(f"capacity            {rps * 15:8.0f} learners at one request every 15 s each")
    print(f"                    {steps_ps * 15:8.0f} learners at one answer every 15 s each")
    print(f"errors              {errors:8d}")
    for kind, messages in recorder.errors.items():
        for message in sorted(set(messages))[:3]:
            print(f"  {kind}: {message}")

    stored = stored_answers(list(recorder.submitted))
    submitted = sum(recorder.submitted.values())
    lost = sum(max(0, n - stored.get(a, 0)) for a, n in recorder.submitted.items())
    doubled = sum(max(0, stored.get(a, 0) - n) for a, n in recorder.submitted.items())
    print(
        f"answers: {submitted} accepted, {sum(stored.values())} in the database, "
        f"{lost} lost, {doubled} extra"
    )
    return 0 if errors == 0 and lost == 0 and doubled == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
