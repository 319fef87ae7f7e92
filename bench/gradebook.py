"""Time a class's gradebook: `make bench-gradebook`.

Recreates the database named in DATABASE_URL (it must end in "_bench"), loads the demo
content, then makes one class of 500 learners and 20 assignments (the demo's quizzes, again
and again), each learner with 1 to 3 attempts at each (a few still open, a few past their
deadline, some late), written in bulk. It times the gradebook page and its CSV through
Django's test client with DEBUG off (median of RUNS, after a warm-up), and prints where the
page's time goes: the selector alone, and the rendering.
"""

import os
import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quizsite.settings")
os.environ.setdefault("DEBUG", "false")
os.environ.setdefault("SECRET_KEY", "benchmark-only")
os.environ.setdefault("ALLOWED_HOSTS", "testserver")
os.environ.setdefault("HTTPS", "false")

import django  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from reports import recreate_database  # noqa: E402

LEARNERS = 500
ASSIGNMENTS = 20
RUNS = 7
TARGET_MS = 300


def median_ms(action) -> float:
    times = []
    for _run in range(RUNS):
        began = time.perf_counter()
        action()
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def build_class():
    """The class, its learners, assignments and attempts, in bulk: a few seconds."""
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import User
    from django.utils import timezone

    from quizzes.classes.services import class_create
    from quizzes.models import Assignment, Attempt, Grading, Membership, Quiz

    rng = random.Random(25)
    now = timezone.now()
    teacher = User.objects.create_superuser("bench", password=None)
    klass = class_create(name="Bench class", instructor=teacher)
    password = make_password(None)
    learners = User.objects.bulk_create(
        User(username=f"learner-{n:03}", password=password) for n in range(LEARNERS)
    )
    Membership.objects.bulk_create(Membership(klass=klass, learner=user) for user in learners)
    quizzes = list(Quiz.objects.filter(is_published=True).order_by("pk"))
    gradings = list(Grading)
    assignments = Assignment.objects.bulk_create(
        Assignment(
            klass=klass,
            quiz=quizzes[n % len(quizzes)],
            opens_at=now - timedelta(days=40),
            closes_at=now + timedelta(days=n - 10),  # Half closed, half still open.
            time_limit=timedelta(minutes=30),
            grading=gradings[n % len(gradings)],
        )
        for n in range(ASSIGNMENTS)
    )
    questions = {quiz.pk: quiz.questions.count() for quiz in quizzes}
    attempts = []
    for assignment in assignments:
        out_of = questions[assignment.quiz_id]
        for user in learners:
            count = rng.choice((1, 1, 2, 2, 3))
            for number in range(1, count + 1):
                started = now - timedelta(days=rng.randint(1, 39), minutes=rng.randint(0, 1440))
                finished = started + timedelta(minutes=rng.randint(3, 25))
                still_open = number == count and rng.random() < 0.05
                attempts.append(
                    Attempt(
                        quiz_id=assignment.quiz_id,
                        user=user,
                        language=rng.choice(("en", "fr")),
                        started_at=started,
                        completed_at=None if still_open else finished,
                        deadline=started + timedelta(minutes=30),
                        score=None if still_open else rng.randint(0, out_of),
                        max_score=None if still_open else out_of,
                        assignment=assignment,
                        number=number,
                    )
                )
    # (`started_at` is auto_now_add: every start becomes now, which the gradebook only
    # orders by after the number.) Most open attempts are past their deadline.
    Attempt.objects.bulk_create(attempts, batch_size=5000)
    return klass, teacher, len(attempts)


def main() -> None:
    recreate_database()
    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.utils import translation

    from quizzes.classes.gradebook import gradebook

    call_command("collectstatic", interactive=False, verbosity=0)
    call_command("migrate", verbosity=0)
    call_command("loaddemo")
    began = time.perf_counter()
    klass, teacher, attempts = build_class()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    print(
        f"{LEARNERS} learners x {ASSIGNMENTS} assignments, {attempts} attempts "
        f"(built in {time.perf_counter() - began:.1f} s)",
        flush=True,
    )
    client = Client()
    client.force_login(teacher)
    page, csv_url = f"/en/classes/{klass.pk}/gradebook/", f"/en/classes/{klass.pk}/gradebook.csv"

    def get_page() -> None:
        response = client.get(page)
        assert response.status_code == 200, response.status_code

    def get_csv() -> None:
        response = client.get(csv_url)
        assert response.status_code == 200, response.status_code
        for _chunk in response.streaming_content:
            pass

    def select() -> None:
        with translation.override("en"):
            gradebook(klass=klass)

    get_page()  # Warm the caches and the compiled templates once.
    size = len(client.get(page).content)
    page_ms = median_ms(get_page)
    select_ms = median_ms(select)
    csv_ms = median_ms(get_csv)
    print(f"gradebook page: {page_ms:.0f} ms ({size / 1e6:.2f} MB of HTML)")
    print(f"  of which the selector (queries and grades): {select_ms:.0f} ms")
    print(f"gradebook.csv: {csv_ms:.0f} ms")
    verdict = "meets" if page_ms < TARGET_MS else "MISSES"
    print(f"{verdict} the {TARGET_MS} ms target")


if __name__ == "__main__":
    main()
