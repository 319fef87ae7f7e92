"""Do the report rollups' triggers make concurrent learners of one quiz wait on each other?

    DATABASE_URL=$(QUIZSITE_PG_DATABASE=locks_bench scripts/postgres url) \
        .venv/bin/python bench/rollup_locks.py --sessions 16 --seconds 20

On the private PostgreSQL cluster, in a database of its own (its name must end in _bench),
which it recreates: the demo content and 2,000 seeded attempts of the demo quiz, then
`--sessions` connections take attempts of that quiz as fast as they can, each as the site
writes them: the attempt, then each answer (and its picks) in a transaction of its own, the
last one completing the attempt in the same transaction as the site's answer_record does.
The rows are copies of the seeded attempts (their languages, kinds, scores, answers and
picks; a new account for each signed-in one, as many learners take a quiz once), so the
rollups' keys are spread as a real quiz's. With the triggers on, a thread folds the deltas
every 5 s meanwhile (the task worker: once a minute). The statements are SQL, without
the site's Python around them: the database's share of a step, where waits on locks show
most.

It runs four rounds, alternated: the rollups' triggers disabled (`ALTER TABLE … DISABLE
TRIGGER USER`: the site without rollups, as main was) and enabled, twice each. Meanwhile it
samples pg_stat_activity every 10 ms and counts the sessions waiting on a lock
(wait_event_type 'Lock': 'transactionid', 'tuple'), and it prints per round the attempts
completed a second, the answer transactions' p50/p95/p99 in ms and the share of the
sessions' samples spent waiting on a lock. After the rounds, the rollups are rebuilt and
another round run with the triggers on, and the counts they kept checked equal to those a
rebuild counts from scratch.
"""

import argparse
import os
import random
import statistics
import sys
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # Not bench/: its bench.py would hide the bench folder.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quizsite.settings")
os.environ.setdefault("DEBUG", "false")
os.environ.setdefault("SECRET_KEY", "benchmark-only")
os.environ.setdefault("HTTPS", "false")

import django  # noqa: E402
import psycopg  # noqa: E402

SLUG = "data-parallelism-quiz"
TABLES = ("quizzes_attempt", "quizzes_answer", "quizzes_answerchoice")
APPLICATION = "rollup_locks"


def pattern_attempts(url: str, quiz_id: int) -> tuple[list[tuple[int, list[int]]], dict]:
    """The seeded completed attempts, each with its answers' ids in the order given, and
    whether each is a signed-in learner's."""
    with psycopg.connect(url) as connection:
        rows = connection.execute(
            "SELECT t.id, t.user_id IS NOT NULL, array_agg(a.id ORDER BY a.id) "
            "FROM quizzes_attempt t JOIN quizzes_answer a ON a.attempt_id = t.id "
            "WHERE t.quiz_id = %s AND t.completed_at IS NOT NULL GROUP BY t.id",
            (quiz_id,),
        ).fetchall()
    return [(attempt, answers) for attempt, _user, answers in rows], {
        attempt: user for attempt, user, _answers in rows
    }


def learner(url: str, patterns, signed_in, stop, seed: int, out: dict) -> None:
    """Takes attempts until `stop`: copies of random patterns, one transaction an answer; a
    pattern's learner signed in is a new account."""
    rng = random.Random(seed)
    latencies, completed = [], 0
    with psycopg.connect(url, autocommit=True, application_name=APPLICATION) as connection:
        while not stop.is_set():
            pattern, answers = rng.choice(patterns)
            user = None
            if signed_in[pattern]:  # A new learner's account, as the pattern had one.
                ((user,),) = connection.execute(
                    "INSERT INTO auth_user (password, is_superuser, username, first_name, "
                    "last_name, email, is_staff, is_active, date_joined) "
                    "VALUES ('!', false, %s, '', '', '', false, true, now()) RETURNING id",
                    (f"locks-{uuid.uuid4().hex}",),
                ).fetchall()
            ((attempt,),) = connection.execute(
                "INSERT INTO quizzes_attempt (public_id, learner_key, language, started_at, "
                "completed_at, score, max_score, user_id, quiz_id, is_first, abandoned_at, "
                "kind, question_ids, deadline, number, assignment_id) "
                "SELECT %s, %s, language, now(), NULL, NULL, NULL, %s, quiz_id, is_first, "
                "NULL, kind, question_ids, NULL, number, NULL FROM quizzes_attempt "
                "WHERE id = %s RETURNING id",
                (uuid.uuid4(), "" if user else uuid.uuid4().hex, user, pattern),
            ).fetchall()
            for number, answer in enumerate(answers, 1):
                began = time.perf_counter()
                with connection.transaction():
                    connection.execute(
                        "SELECT 1 FROM quizzes_attempt WHERE id = %s FOR UPDATE", (attempt,)
                    )
                    ((new,),) = connection.execute(
                        "INSERT INTO quizzes_answer (is_correct, answered_at, attempt_id, "
                        "question_id, choice_id, response, variant, credit) "
                        "SELECT is_correct, now(), %s, question_id, choice_id, response, "
                        "variant, credit FROM quizzes_answer WHERE id = %s RETURNING id",
                        (attempt, answer),
                    ).fetchall()
                    connection.execute(
                        "INSERT INTO quizzes_answerchoice (answer_id, choice_id) "
                        "SELECT %s, choice_id FROM quizzes_answerchoice WHERE answer_id = %s",
                        (new, answer),
                    )
                    if number == len(answers):
                        connection.execute(
                            "UPDATE quizzes_attempt t SET completed_at = now(), "
                            "score = p.score, max_score = p.max_score "
                            "FROM quizzes_attempt p WHERE t.id = %s AND p.id = %s",
                            (attempt, pattern),
                        )
                latencies.append((time.perf_counter() - began) * 1000)
                if stop.is_set():
                    break
            else:
                completed += 1
    out[seed] = (completed, latencies)


def sample_waits(url: str, stop: threading.Event, counts: dict) -> None:
    with psycopg.connect(url, autocommit=True) as connection:
        while not stop.is_set():
            ((waiting, active),) = connection.execute(
                "SELECT count(*) FILTER (WHERE wait_event_type = 'Lock'), count(*) "
                "FROM pg_stat_activity WHERE application_name = %s",
                (APPLICATION,),
            ).fetchall()
            counts["waiting"] += waiting
            counts["sessions"] += active
            counts["samples"] += 1
            time.sleep(0.01)


def compact_every(url: str, stop: threading.Event, seconds: float) -> None:
    """The task worker's compaction, every `seconds` (the site's: once a minute at most)."""
    from quizzes.reports.rollups import _compaction

    with psycopg.connect(url, autocommit=True) as connection:
        while not stop.wait(seconds):
            connection.execute(_compaction(quiz=False))


def round_(url: str, patterns, sessions: int, seconds: float, compacting: bool) -> dict:
    stop, out = threading.Event(), {}
    counts = {"waiting": 0, "sessions": 0, "samples": 0}
    threads = [
        threading.Thread(target=learner, args=(url, *patterns, stop, seed, out))
        for seed in range(sessions)
    ]
    threads.append(threading.Thread(target=sample_waits, args=(url, stop, counts)))
    if compacting:
        threads.append(threading.Thread(target=compact_every, args=(url, stop, 5)))
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join()
    latencies = sorted(ms for _done, times in out.values() for ms in times)
    cut = statistics.quantiles(latencies, n=100)
    return {
        "completed_per_s": sum(done for done, _times in out.values()) / seconds,
        "answers_per_s": len(latencies) / seconds,
        "p50": cut[49],
        "p95": cut[94],
        "p99": cut[98],
        "waiting": counts["waiting"] / max(counts["sessions"], 1),
        "load": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    from bench.reports import recreate_database

    recreate_database()
    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from quizzes.models import Quiz
    from quizzes.reports import rollups

    call_command("migrate", verbosity=0)
    call_command("loaddemo", verbosity=0)
    quiz_id = Quiz.objects.get(slug=SLUG).pk
    call_command("seedattempts", SLUG, count=2000, seed=1, verbosity=0)
    rollups.rebuild(connection)
    connection.close()
    url = os.environ["DATABASE_URL"]
    patterns = pattern_attempts(url, quiz_id)
    print(f"{args.sessions} sessions, {args.seconds:.0f} s a round, {os.cpu_count()} cores")
    print(
        f"{'triggers':>9} {'att/s':>7} {'ans/s':>7} {'p50 ms':>7} {'p95 ms':>7} "
        f"{'p99 ms':>7} {'lock wait':>10} {'load':>5}"
    )
    for _round in range(args.rounds):
        for enabled in (False, True):
            with psycopg.connect(url, autocommit=True) as admin:
                for table in TABLES:
                    admin.execute(
                        f"ALTER TABLE {table} {'ENABLE' if enabled else 'DISABLE'} TRIGGER USER"
                    )
            row = round_(url, patterns, args.sessions, args.seconds, compacting=enabled)
            print(
                f"{'on' if enabled else 'off':>9} {row['completed_per_s']:>7.1f} "
                f"{row['answers_per_s']:>7.0f} {row['p50']:>7.1f} {row['p95']:>7.1f} "
                f"{row['p99']:>7.1f} {row['waiting']:>9.1%} {row['load']:>5.1f}",
                flush=True,
            )
    # The counts the triggers kept under concurrent writers, against a count from scratch.
    rollups.rebuild(connection)  # Counts what the rounds without triggers wrote too.
    round_(url, patterns, args.sessions, args.seconds / 4, compacting=True)
    kept = rollups.folded(connection)
    rollups.rebuild(connection)
    assert kept == rollups.folded(connection), "the triggers' counts differ from a scan"
    print(f"after a round on rebuilt rollups, their {len(kept):,} counts equal a rebuild's")


if __name__ == "__main__":
    main()
