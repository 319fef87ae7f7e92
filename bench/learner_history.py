"""Each learner page costs the same whatever the learner's history: `make bench-learner`.

Recreates the database named in DATABASE_URL (it must end in "_bench"), loads the demo
content, and makes two signed-in learners of the demo quiz: one with a single finished
attempt, one with 1,000 finished attempts (each with its answers) and one in progress.
It times, through Django's test client with `DEBUG` off, median of 21 after a warm-up,
the quiz page, My progress and the home page for each, prints the ratios, and fails
(exit status 1) if a page costs more than BOUND times as much for the long history.
"""

import os
import statistics
import sys
import time
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # Not bench/: its bench.py would hide the bench folder.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quizsite.settings")
os.environ.setdefault("DEBUG", "false")
os.environ.setdefault("SECRET_KEY", "benchmark-only")
os.environ.setdefault("ALLOWED_HOSTS", "testserver")
os.environ.setdefault("HTTPS", "false")

import django  # noqa: E402

from bench.reports import recreate_database  # noqa: E402

SLUG = "data-parallelism-quiz"
PAGES = {"quiz page": f"/en/quizzes/{SLUG}/", "My progress": "/en/progress/", "home": "/en/"}
HISTORY = 1_000
RUNS = 21
BOUND = 1.5  # The long history's page may cost at most this many times the short one's.


def make_learner(name: str, attempts: int):
    from django.contrib.auth.models import User
    from django.utils import timezone

    from quizzes.models import Answer, Attempt, Quiz

    quiz = Quiz.objects.get(slug=SLUG)
    questions = list(quiz.questions.prefetch_related("choices"))
    user = User.objects.create_user(name, password=None)
    began = timezone.now() - timedelta(days=attempts)
    made = Attempt.objects.bulk_create(
        Attempt(
            quiz=quiz,
            user=user,
            language="en",
            is_first=n == 0,
            completed_at=None if n == attempts else began + timedelta(days=n, minutes=9),
            score=None if n == attempts else Decimal(n % len(questions)),
            max_score=None if n == attempts else len(questions),
        )
        for n in range(attempts + 1)  # And the one in progress.
    )
    for attempt, n in zip(made, range(attempts + 1), strict=True):
        attempt.started_at = began + timedelta(days=n)
    Attempt.objects.bulk_update(made, ["started_at"])
    Answer.objects.bulk_create(
        Answer(
            attempt=attempt,
            question=question,
            choice=question.choices.all()[0],
            credit=Decimal(index < n % len(questions)),
            is_correct=index < n % len(questions),
        )
        for n, attempt in enumerate(made)
        for index, question in enumerate(questions if n < attempts else questions[:2])
    )
    return user


def median_ms(client, url: str) -> float:
    client.get(url)  # Warm the caches (kept page parts, compiled queries).
    times = []
    for _run in range(RUNS):
        began = time.perf_counter()
        response = client.get(url)
        assert response.status_code == 200, response.status_code
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def main() -> None:
    recreate_database()
    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    call_command("collectstatic", interactive=False, verbosity=0)
    call_command("migrate", verbosity=0)
    call_command("loaddemo")
    learners = {1: make_learner("one-attempt", 1), HISTORY: make_learner("long-history", HISTORY)}
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    clients = {}
    for attempts, user in learners.items():
        clients[attempts] = Client()
        clients[attempts].force_login(user)
    print(f"{'page':<12} {'1 attempt':>10} {f'{HISTORY:,} attempts':>15} {'ratio':>6}")
    failed = []
    for name, url in PAGES.items():
        # Alternately, so that the machine's load weighs on both alike.
        short, long = [], []
        for _round in range(3):
            short.append(median_ms(clients[1], url))
            long.append(median_ms(clients[HISTORY], url))
        one, many = statistics.median(short), statistics.median(long)
        ratio = many / one
        print(f"{name:<12} {one:>8.1f} ms {many:>12.1f} ms {ratio:>5.2f}x")
        if ratio > BOUND:
            failed.append(name)
    if failed:
        sys.exit(f"More than {BOUND}x the cost for {HISTORY:,} attempts: {', '.join(failed)}")
    print(f"Every page within {BOUND}x of its cost for a single attempt.")


if __name__ == "__main__":
    main()
