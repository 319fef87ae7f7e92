"""Python function calls per quiz step, in one process: a measure that holds on a noisy machine.

    .venv/bin/python bench/step_calls.py                                   # SQLite
    DATABASE_URL=$(scripts/postgres url) .venv/bin/python bench/step_calls.py   # PostgreSQL

An anonymous learner takes the demo quiz through Django's WSGI handler, as bench/bench.py's
learners do over HTTP, on both paths (with the page's script: Start's POST, then one POST an
answer, whose response has what follows; without: Start, then the question, the POST and the
feedback, then the results), and cProfile counts the function calls of each
kind of request, and each answer's with the script by its question's kind. The same for
/healthz, the unit the load benchmark compares with.
"""

import cProfile
import io
import json
import os
import pstats
import re
import sys
from collections import defaultdict
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quizsite.settings")
os.environ.setdefault("DEBUG", "false")
os.environ.setdefault("SECRET_KEY", "step-calls")
os.environ.setdefault("ALLOWED_HOSTS", "testserver")
os.environ.setdefault("HTTPS", "false")  # Plain HTTP in process: no redirect to HTTPS.

import django  # noqa: E402

django.setup()

from django.core.handlers.wsgi import WSGIHandler  # noqa: E402
from django.core.management import call_command  # noqa: E402

from bench import answer_value  # noqa: E402  (bench/bench.py, beside this script)
from quizzes.models import Quiz  # noqa: E402

CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
QUIZ = "/en/quizzes/data-parallelism-quiz/"


class Learner:
    def __init__(self, app: WSGIHandler) -> None:
        self.app, self.cookies, self.token = app, {}, ""
        self.calls: dict[str, list[int]] = defaultdict(list)
        self.answers: dict[int, list[int]] = defaultdict(list)  # By question number.

    def request(self, kind: str, method: str, path: str, form: str = "", accept="text/html"):
        body = form.encode()
        environ = {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "QUERY_STRING": "",
            "SERVER_NAME": "testserver",
            "SERVER_PORT": "80",
            "HTTP_HOST": "testserver",
            "HTTP_ACCEPT": accept,
            "HTTP_COOKIE": "; ".join(f"{k}={v}" for k, v in self.cookies.items()),
            "CONTENT_TYPE": "application/x-www-form-urlencoded",
            "CONTENT_LENGTH": str(len(body)),
            "wsgi.input": io.BytesIO(body),
            "wsgi.errors": sys.stderr,
            "wsgi.url_scheme": "http",
        }
        headers = []
        profile = cProfile.Profile()
        profile.enable()
        content = b"".join(self.app(environ, lambda status, h, *_: headers.extend(h))).decode()
        profile.disable()
        self.calls[kind].append(pstats.Stats(profile).total_calls)
        for name, value in headers:
            if name == "Set-Cookie":
                self.cookies.update((k, m.value) for k, m in SimpleCookie(value).items())
        return dict(headers).get("Location", ""), content

    def answer_form(self, page: str) -> str:
        """With the page's token, as the script gives it the forms it shows."""
        token = CSRF.search(page)
        self.token = token.group(1) if token else self.token
        return urlencode({"csrfmiddlewaretoken": self.token, "choice": answer_value(page)}, True)

    def take_quiz(self, scripted: bool) -> int:
        """The demo quiz from its page to its results; the number of steps."""
        _, page = self.request("quiz page", "GET", QUIZ)
        self.token = CSRF.search(page).group(1)
        form = f"csrfmiddlewaretoken={self.token}"
        if scripted:  # Start's response has the first question; each answer's what follows.
            _, reply = self.request("start", "POST", f"{QUIZ}start/", form, "application/json")
            following = json.loads(reply)["next"]
            steps = 0
            while not following["url"].endswith("/results/"):
                steps += 1
                form = self.answer_form(following["main"])
                _, reply = self.request(
                    "answer", "POST", following["url"], form, "application/json"
                )
                number = int(following["url"].rstrip("/").rsplit("/", 1)[1])
                self.answers[number].append(self.calls["answer"][-1])
                following = json.loads(reply)["next"]
            return steps
        path, _ = self.request("start", "POST", f"{QUIZ}start/", form)
        _, page = self.request("question", "GET", path)
        steps = 0
        while True:
            steps += 1
            self.request("answer", "POST", path, self.answer_form(page))
            _, page = self.request("feedback", "GET", path)
            number = int(path.rstrip("/").rsplit("/", 1)[1])
            if f"/questions/{number + 1}/" not in page:
                break
            path = path.replace(f"/questions/{number}/", f"/questions/{number + 1}/")
            _, page = self.request("question", "GET", path)
        self.request("results", "GET", path.split("/questions/")[0] + "/results/")
        return steps


def main() -> None:
    call_command("migrate", verbosity=0)
    call_command("loaddemo", stdout=io.StringIO())
    app = WSGIHandler()
    quiz = Quiz.objects.get(slug=QUIZ.strip("/").rsplit("/", 1)[1])
    kinds = dict(enumerate(quiz.questions.values_list("kind", flat=True), 1))
    health = Learner(app)
    for _ in range(100):
        health.request("/healthz", "GET", "/healthz")
    healthz = sum(health.calls["/healthz"][10:]) / 90
    print(f"/healthz: {healthz:,.0f} calls")
    for scripted in (True, False):
        learner = Learner(app)
        for _ in range(2):  # Warm the kept content and parts up: the first and the next.
            learner.take_quiz(scripted)
        learner.calls.clear()
        learner.answers.clear()
        steps = sum(learner.take_quiz(scripted) for _ in range(5))
        total = sum(sum(calls) for calls in learner.calls.values())
        requests = sum(len(calls) for calls in learner.calls.values())
        name = "with the page's script" if scripted else "without script"
        print(
            f"{name}: {total / steps:,.0f} calls per step ({total / steps / healthz:.1f}"
            f" /healthz), {requests / steps:.2f} requests per step"
        )
        for kind, calls in learner.calls.items():
            each = sum(calls) / len(calls)
            print(f"  {kind:<10} {len(calls) / 5:4.1f} a quiz, {each:7,.0f} calls")
        if scripted:  # Each answer's reply has what follows: the last one's, the results.
            for number, calls in sorted(learner.answers.items()):
                print(
                    f"    answer to question {number:>2} ({kinds[number]}):"
                    f" {min(calls):,} to {max(calls):,} calls"
                )


if __name__ == "__main__":
    main()
