"""What the compiled attempt query saves: `attempt_for_learner` against its plain ORM twin.

    .venv/bin/python bench/attempt_read.py              # on SQLite, in a throwaway database
    DATABASE_URL=$(scripts/postgres url) .venv/bin/python bench/attempt_read.py

Both reads run in the same process, in turn, on one attempt of the demo quiz with half of
its questions answered, inside a transaction that is rolled back; it prints the CPU time and
queries per read of each (the median of several rounds).
"""

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quizsite.settings")
os.environ.setdefault("DATABASE_URL", f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3")
os.environ.setdefault("DEBUG", "false")  # No query log: it would be timed too.
os.environ.setdefault("SECRET_KEY", "benchmark-only")
os.environ.setdefault("ALLOWED_HOSTS", "testserver")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402

from quizzes.learning.selectors import Learner, attempt_for_learner, attempt_for_learner_orm  # noqa: E402
from quizzes.learning.services import answer_record, attempt_start  # noqa: E402
from quizzes.models import Quiz  # noqa: E402
from quizzes.snapshots import quiz_content  # noqa: E402

CALLS = 2000
ROUNDS = 5


def per_call_ms(read, **kwargs) -> float:
    start = time.process_time()
    for _ in range(CALLS):
        read(**kwargs)
    return (time.process_time() - start) * 1000 / CALLS


def queries_of(read, **kwargs) -> int:
    queries = []
    with connection.execute_wrapper(lambda run, *args: queries.append(1) or run(*args)):
        read(**kwargs)
    return len(queries)


def main() -> None:
    call_command("migrate", verbosity=0)
    with transaction.atomic():
        call_command("loaddemo", verbosity=0)
        quiz = Quiz.objects.get(slug="data-parallelism-quiz")
        content = quiz_content(quiz_id=quiz.pk, updated_at=quiz.updated_at)
        attempt = attempt_start(quiz=quiz, user=None, learner_key="bench")
        for question in content.questions[: len(content.questions) // 2]:
            choices = question.choices[:1]
            answer_record(attempt=attempt, quiz=content, question=question, choices=choices)
        args = {"public_id": attempt.public_id, "learner": Learner(user_id=None, key="bench")}
        for read in (attempt_for_learner, attempt_for_learner_orm):
            read(**args)  # Compiles, and keeps the content.
        timings = {read: [] for read in (attempt_for_learner, attempt_for_learner_orm)}
        for _round in range(ROUNDS):
            for read, times in timings.items():
                times.append(per_call_ms(read, **args))
        print(f"database: {connection.vendor}, {CALLS} reads x {ROUNDS} rounds, CPU per read")
        for read, times in timings.items():
            median = statistics.median(times)
            print(f"  {read.__name__:<26} {median:.3f} ms, {queries_of(read, **args)} queries")
        transaction.set_rollback(True)


if __name__ == "__main__":
    main()
