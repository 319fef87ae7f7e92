"""Closed-loop load benchmark: simulated learners take the demo quiz over real HTTP.

Each learner is a thread with its own cookies (learner key, CSRF token), as a browser has: it
opens the quiz page, starts an attempt, and answers every question, then loads the results,
then starts again, sending each request as soon as the last one is answered, until the time
is up. Two paths, one after the other: a learner without JavaScript loads each question,
posts an answer (with the form's CSRF token) and loads the feedback it is redirected to, and
at the end the results; one with JavaScript posts Start and each answer as the page's
script does, and reads the first question from Start's response, and the feedback with the
next question, or at the end the results, from each answer's. Before, between
and after them, as many clients ask /healthz for a few seconds: the same server's ceiling,
to compare (measured on every side, as other work on the machine may come and go).

With --cpu-pidfile (gunicorn's master, PostgreSQL's postmaster), it reads from /proc the CPU
those processes and their children spent during each path, and prints it per quiz step: a
figure that holds on a noisy machine. Afterwards the answers in the database are checked
against the submissions that succeeded.
"""

import argparse
import http.client
import ipaddress
import json
import os
import random
import re
import socket
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode, urlsplit

KINDS = ("quiz page", "start", "question", "answer", "feedback", "results")
PATHS = {"js": "with JavaScript", "nojs": "without JavaScript"}
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
CHOICE = re.compile(r'name="choice" value="(\d+)"')
TYPED = 'id="text-answer"'  # A short-answer question's input: its answer is typed.
NUMBER = 'id="number-answer"'  # A numerical or calculated question's: a number is typed.
# An ordering question's position boxes, each item at the place it is shown in.
ORDER = re.compile(r'<option value="(\d+:\d+)" selected>')
# A gaps question's inputs, in order: a gap's list (its first choice after "Choose…") or box.
GAP = re.compile(
    r'<select class="gap-input"[^>]*><option value="">[^<]*</option><option value="(\d+)"'
    r'|<input type="text" class="gap-input (gap-number|gap-text)"'
)
ATTEMPT = re.compile(r"/attempts/([0-9a-f-]{36})/questions/(\d+)/$")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def answer_value(page: str) -> str | list[str] | None:
    """What a learner posts as the answer of a question page: its first choice, its items'
    positions as shown, a typed answer (a text, a number), or a value for each gap (a list's
    first choice, a number, a text); None for a page that takes no answer (its feedback)."""
    if order := ORDER.findall(page):
        return order
    if gaps := GAP.findall(page):
        return [
            pick or ("1024" if box == "gap-number" else "DistributedDataParallel")
            for pick, box in gaps
        ]
    choice = CHOICE.search(page)
    if choice is not None:
        return choice.group(1)
    if NUMBER in page:
        return "1024"
    return "DistributedDataParallel" if TYPED in page else None


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

    def __init__(self, host: str, port: int, recorder: Recorder, think: float = 0) -> None:
        self.host, self.port, self.recorder = host, port, recorder
        self.think = think  # Seconds a learner reads before each request on average, untimed.
        self.cookies: dict[str, str] = {}

    def request(self, kind: str, method: str, path: str, form: dict | None = None, accept=None):
        if self.think:  # Anywhere from nothing to twice as long: learners don't keep step.
            time.sleep(random.uniform(0, 2 * self.think))
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        if accept:
            headers["Accept"] = accept
        body = None
        if form is not None:
            body = urlencode(form, doseq=True)
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

    def expect(self, kind, status, method, path, form=None, accept=None):
        got, location, content = self.request(kind, method, path, form, accept)
        if got != status:
            self.recorder.error(kind, f"HTTP {got} for {method} {path}")
            raise Failure
        return location, content


def take_quiz(browser: Browser, lang: str, slug: str, deadline: float, scripted: bool) -> None:
    recorder = browser.recorder
    _, page = browser.expect("quiz page", 200, "GET", f"/{lang}/quizzes/{slug}/")
    if CSRF.search(page) is None:  # An attempt in progress (after a failure): the page links
        # Resume and Start over, whose page has a form; Start resumes the attempt.
        _, page = browser.expect("quiz page", 200, "GET", f"/{lang}/quizzes/{slug}/start-over/")
    token = CSRF.search(page).group(1)
    start = f"/{lang}/quizzes/{slug}/start/", {"csrfmiddlewaretoken": token}
    if scripted:  # The page's script: Start's response has the first question, whose form
        # (as every form it shows) it gives the page's token.
        _, content = browser.expect("start", 200, "POST", *start, "application/json")
        first = json.loads(content)["next"]
        path, page = first["url"], first["main"]
    else:
        path, _ = browser.expect("start", 302, "POST", *start)
        _, page = browser.expect("question", 200, "GET", path)
    attempt, number = ATTEMPT.search(path).groups()
    number = int(number)
    while time.monotonic() < deadline:
        choice = answer_value(page)
        if scripted:  # The feedback and what follows, the next question or the results.
            form = {"csrfmiddlewaretoken": token, "choice": choice}
            _, content = browser.expect("answer", 200, "POST", path, form, "application/json")
            recorder.answered(attempt)
            following = json.loads(content)["next"]
            if following["url"].endswith("/results/"):
                return
            path, page = following["url"], following["main"]
            continue
        if choice is not None:  # Else answered before a failure: Start resumed at question 1.
            form = {"csrfmiddlewaretoken": CSRF.search(page).group(1), "choice": choice}
            browser.expect("answer", 302, "POST", path, form)
            recorder.answered(attempt)
            _, page = browser.expect("feedback", 200, "GET", path)
        if f"/questions/{number + 1}/" not in page:
            browser.expect("results", 200, "GET", f"/{lang}/attempts/{attempt}/results/")
            return
        number += 1
        path = f"/{lang}/attempts/{attempt}/questions/{number}/"
        _, page = browser.expect("question", 200, "GET", path)


def learner(host, port, recorder, lang, slug, deadline, scripted, think) -> None:
    browser = Browser(host, port, recorder, think)
    while time.monotonic() < deadline:
        try:
            take_quiz(browser, lang, slug, deadline, scripted)
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


def cpu_seconds(pidfiles: list[str]) -> float | None:
    """CPU time spent so far by the processes named in `pidfiles` and all their descendants
    (user and system, with what their reaped children spent), from /proc; None without
    pidfiles."""
    if not pidfiles:
        return None
    parents: dict[int, int] = {}
    times: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # It ended while we looked.
            continue
        pid = int(stat.parent.name)
        parents[pid] = int(fields[1])
        times[pid] = sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
    roots = {int(Path(f).read_text().split()[0]) for f in pidfiles}
    ticks = 0
    for pid in times:
        ancestor = pid
        while ancestor not in roots and ancestor > 1:
            ancestor = parents.get(ancestor, 0)
        if ancestor in roots:
            ticks += times[pid]
    return ticks / CLOCK_TICKS


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


def report(name, recorder: Recorder, elapsed, health, cpu, health_ms, paced: bool) -> None:
    requests = sum(len(v) for v in recorder.latencies.values())
    steps_ps = recorder.steps / elapsed
    print(f"\n{name}: {elapsed:.1f} s")
    print(f"{'request':<10} {'count':>7} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'errors':>7}")
    for kind in KINDS:
        values = recorder.latencies.get(kind, [])
        if values:
            p50, p95, p99 = (1000 * percentile(values, f) for f in (0.50, 0.95, 0.99))
            row = f"{p50:>8.1f} {p95:>8.1f} {p99:>8.1f}"
            print(f"{kind:<10} {len(values):>7} {row} {len(recorder.errors.get(kind, [])):>7}")
    print(f"learner requests/s  {requests / elapsed:8.1f}")
    print(f"quiz steps/s        {steps_ps:8.1f}   (load a question, answer it, see the feedback)")
    print(f"requests per step   {requests / max(1, recorder.steps):8.2f}")
    if not paced:  # Paced learners ask for what they read: their rate is not the server's.
        print(f"ratio to /healthz   {steps_ps / health:8.2f}   (quiz steps/s; target: 0.2)")
    if cpu is not None:
        per_step = 1000 * cpu / max(1, recorder.steps)
        print(f"server CPU per step {per_step:8.2f} ms (gunicorn and PostgreSQL; target: 3.5)")
        print(f"                    {per_step / health_ms:8.1f} /healthz requests' CPU")
    if not paced:
        print(f"capacity            {steps_ps * 15:8.0f} learners at one answer every 15 s each")
    errors = sum(len(v) for v in recorder.errors.values())
    print(f"errors              {errors:8d}")
    for kind, messages in recorder.errors.items():
        for message in sorted(set(messages))[:3]:
            print(f"  {kind}: {message}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--learners", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20, help="each path's learners phase")
    parser.add_argument("--health-seconds", type=float, default=2, help="each /healthz phase")
    parser.add_argument(
        "--warmup-seconds", type=float, default=3, help="learners before each path, not timed"
    )
    parser.add_argument(
        "--think",
        type=float,
        default=0,
        help="seconds each learner reads before each request, on average (0: a closed loop)",
    )
    parser.add_argument("--quiz", default="data-parallelism-quiz")
    parser.add_argument("--lang", default="en")
    parser.add_argument("--paths", default="js,nojs", help="js, nojs or both, in that order")
    parser.add_argument(
        "--cpu-pidfile",
        action="append",
        default=[],
        help="a server process whose CPU (with its children's) counts; may be repeated",
    )
    args = parser.parse_args()
    paths = args.paths.split(",")
    if not paths or set(paths) - set(PATHS):
        print(f"bench: --paths takes {', '.join(PATHS)}, comma-separated.", file=sys.stderr)
        return 2

    url = urlsplit(args.url)
    host = url.hostname or ""
    address = socket.getaddrinfo(host, None)[0][4][0]
    if url.scheme != "http" or not ipaddress.ip_address(address).is_loopback:
        print(f"bench: {args.url} is not http:// on a loopback address; refusing.", file=sys.stderr)
        return 2
    port = url.port or 80

    health_cpu: list[float] = []  # CPU per /healthz request, when measured

    def health_rps() -> float:
        counts = [0] * args.learners
        cpu_before = cpu_seconds(args.cpu_pidfile)
        elapsed = run_threads(
            lambda deadline, i: health_client(host, port, deadline, counts, i),
            args.learners,
            args.health_seconds,
        )
        if cpu_before is not None:
            health_cpu.append((cpu_seconds(args.cpu_pidfile) - cpu_before) / max(1, sum(counts)))
        return sum(counts) / elapsed

    pace = f"each reading {args.think} s a request on average" if args.think else "closed loop"
    print(f"{args.learners} learners, {pace}, against {args.url}")
    healths = [health_rps()]
    runs = []
    for path in paths:
        recorder = Recorder()

        def learners(deadline, _, recorder=recorder, scripted=path == "js"):
            learner(host, port, recorder, args.lang, args.quiz, deadline, scripted, args.think)

        # Warmed up first (each worker's first requests read the content, compile queries):
        # its errors and answers still count, its latencies and steps don't.
        run_threads(learners, args.learners, args.warmup_seconds)
        recorder.latencies.clear()
        recorder.steps = 0
        cpu_before = cpu_seconds(args.cpu_pidfile)
        elapsed = run_threads(learners, args.learners, args.seconds)
        cpu_after = cpu_seconds(args.cpu_pidfile)
        healths.append(health_rps())
        cpu = None if cpu_before is None else cpu_after - cpu_before
        runs.append((path, recorder, elapsed, cpu))
    health = sum(healths) / len(healths)
    rates = ", ".join(f"{rate:.0f}" for rate in healths)
    print(f"/healthz requests/s {health:8.1f}   (same server, {args.learners} clients: {rates})")
    health_ms = 1000 * sum(health_cpu) / len(health_cpu) if health_cpu else None
    if health_ms is not None:
        print(f"/healthz server CPU {health_ms:8.2f} ms per request")

    failed = False
    for path, recorder, elapsed, cpu in runs:
        report(f"Learners {PATHS[path]}", recorder, elapsed, health, cpu, health_ms, args.think > 0)
        stored = stored_answers(list(recorder.submitted))
        submitted = sum(recorder.submitted.values())
        lost = sum(max(0, n - stored.get(a, 0)) for a, n in recorder.submitted.items())
        doubled = sum(max(0, stored.get(a, 0) - n) for a, n in recorder.submitted.items())
        print(
            f"answers: {submitted} accepted, {sum(stored.values())} in the database, "
            f"{lost} lost, {doubled} extra"
        )
        errors = sum(len(v) for v in recorder.errors.values())
        failed = failed or errors > 0 or lost > 0 or doubled > 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
