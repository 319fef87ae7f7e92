"""Time the score report page and both CSV exports as attempts grow: `make bench-reports`.

Recreates the database named in DATABASE_URL (it must end in "_bench"), loads the
demo content, then seeds the demo quiz up to 1,000, 10,000, 100,000 and 1,000,000
completed attempts: `seedattempts` up to 10,000, then copies of those 10,000 in SQL
(bench/copies.py), which the ORM would take hours to write. At each size it times the
report page (first attempts, the default; all attempts; a month in French; and up to
100,000 attempts, the page scanning the attempts, without the rollups) and both CSVs through
Django's test client, and measures the peak Python memory (tracemalloc) while the
attempts CSV streams. At a million attempts the attempts CSV (13.6 million lines) is timed
and traced over its first CSV_LINES lines only: its rate and peak, not its whole time.
"""

import os
import statistics
import sys
import time
import tracemalloc
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # Not bench/: its bench.py would hide the bench folder.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quizsite.settings")
os.environ.setdefault("DEBUG", "false")
os.environ.setdefault("SECRET_KEY", "benchmark-only")
os.environ.setdefault("ALLOWED_HOSTS", "testserver")
os.environ.setdefault("HTTPS", "false")

import django  # noqa: E402
import psycopg  # noqa: E402
from psycopg import sql  # noqa: E402

SIZES = [1_000, 10_000, 100_000, 1_000_000]
PATTERN = 10_000  # Seeded by seedattempts; the larger sizes are copies of these.
SCANNED = 100_000  # Up to this size, the page is timed scanning the attempts too.
CSV_LINES = 1_000_000  # Beyond SCANNED, the attempts CSV is timed over its first lines.
SLUG = "data-parallelism-quiz"
PAGE = f"/en/reports/quizzes/{SLUG}/"
RUNS = 5


def recreate_database() -> None:
    url = os.environ.get("DATABASE_URL", "")
    name = url.rsplit("/", 1)[-1]
    if not url.startswith("postgres") or not name.endswith("_bench"):
        sys.exit("DATABASE_URL must point at a PostgreSQL database whose name ends in _bench.")
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as connection:
        connection.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))
        connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def median_ms(client, url: str, params: dict | None = None, *, runs: int = RUNS) -> float:
    times = []
    for _run in range(runs):
        began = time.perf_counter()
        response = client.get(url, params or {})
        if response.streaming:
            for _chunk in response.streaming_content:
                pass
        assert response.status_code == 200, response.status_code
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def stream(client, url: str, most: int | None) -> tuple[float, int, int]:
    """The attempts CSV streamed (of all attempts), up to its first `most` lines (None: all
    of them): its time in ms, its lines and its bytes."""
    began = time.perf_counter()
    response = client.get(url, {"attempts": "all"})
    assert response.status_code == 200, response.status_code
    lines = size = 0
    for chunk in response.streaming_content:
        size += len(chunk)
        lines += chunk.count(b"\n")
        if most is not None and lines >= most:
            break
    response.close()
    return (time.perf_counter() - began) * 1000, lines, size


def peak_stream_kib(client, url: str, most: int | None) -> tuple[float, int]:
    """Peak traced memory while the CSV streams (up to `most` lines), and its size in bytes."""
    tracemalloc.start()
    _ms, _lines, size = stream(client, url, most)
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1024, size


def rate(row: dict) -> float:
    """The attempts CSV's lines a second."""
    return row["csv_lines"] / row["attempts_csv"] * 1000


def main() -> None:
    recreate_database()
    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.db import connection, transaction
    from django.test import Client, override_settings

    from bench.copies import copy_attempts
    from quizzes.models import Quiz
    from quizzes.reports.rollups import rebuild

    # DEBUG is off, so pages link the hashed static files: without their manifest (a fresh
    # checkout that never ran `make serve`) every page is a 500.
    call_command("collectstatic", interactive=False, verbosity=0)
    call_command("migrate", verbosity=0)
    call_command("loaddemo")
    client = Client()
    client.force_login(User.objects.create_superuser("bench", password=None))
    results = []
    seeded = 0
    pattern = None
    quiz_id = Quiz.objects.get(slug=SLUG).pk
    copied = 0
    for size in SIZES:
        began = time.perf_counter()
        if size <= PATTERN:
            call_command("seedattempts", SLUG, count=size - seeded, seed=size)
        else:
            copies = range(copied + 1, size // PATTERN)
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SELECT min(id), max(id) FROM quizzes_attempt")
                pattern = pattern or cursor.fetchone()
                copy_attempts(cursor, quiz_id=quiz_id, pattern=pattern, copies=copies)
            rebuild(connection)  # The copies were written without the rollups' triggers.
            copied = copies.stop - 1
            print(f"Copied to {size:,} attempts in {time.perf_counter() - began:.0f} s.")
        seeded = size
        # VACUUM as well: the seeding's inserts otherwise start autovacuum on the answer
        # tables a minute later, in the middle of the timings (at 100,000 attempts it ran
        # while the page was timed), and a live database is vacuumed long before a report.
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
        client.get(PAGE)  # warm the caches once
        # A month of attempts in French: the rollups' daily rows.
        month = {"date_from": str(date.today() - timedelta(days=30)), "language": "fr"}
        # The attempts CSV of a million attempts (13.6 million rows) takes many minutes: its
        # first CSV_LINES lines only, once, their rate and peak.
        most = None if size <= SCANNED else CSV_LINES
        timed = [
            stream(client, PAGE + "attempts.csv", most)
            for _run in range(RUNS if most is None else 1)
        ]
        row = {
            "size": size,
            "page": median_ms(client, PAGE),
            "page_all": median_ms(client, PAGE, {"attempts": "all"}),
            "page_month": median_ms(client, PAGE, {**month, "attempts": "all"}),
            "attempts_csv": statistics.median(ms for ms, _lines, _size in timed),
            "csv_lines": timed[0][1],
            "questions_csv": median_ms(client, PAGE + "questions.csv", {"attempts": "all"}),
        }
        # The page as it was, scanning the attempts (up to SCANNED: beyond, a minute a page).
        with override_settings(REPORT_ROLLUPS=False):
            row["scanned"] = median_ms(client, PAGE) if size <= SCANNED else None
        row["peak_kib"], row["csv_bytes"] = peak_stream_kib(client, PAGE + "attempts.csv", most)
        row["load"] = os.getloadavg()[0]  # The machine's, shared: other work counts.
        results.append(row)
        print(
            f"{size:>7} attempts: page {row['page']:.0f} ms "
            f"(all attempts {row['page_all']:.0f} ms, a month in French "
            f"{row['page_month']:.0f} ms, scanning the attempts {row['scanned'] or 0:.0f} ms), "
            f"attempts.csv {row['attempts_csv']:.0f} ms ({row['csv_bytes'] / 1e6:.1f} MB, "
            f"{'its first ' if most else ''}{row['csv_lines']:,} lines, "
            f"{rate(row):,.0f} lines/s), "
            f"questions.csv {row['questions_csv']:.0f} ms, "
            f"CSV stream peak {row['peak_kib']:.0f} KiB, load {row['load']:.1f}",
            flush=True,
        )
    print()
    print(
        f"{'attempts':>9} {'page ms':>8} {'all ms':>8} {'month ms':>9} {'scan ms':>8} "
        f"{'att.csv':>9} {'lines':>10} {'lines/s':>8} {'q.csv':>8} {'peak KiB':>9} {'load':>5}"
    )
    for row in results:
        scanned = f"{row['scanned']:>8.0f}" if row["scanned"] is not None else f"{'-':>8}"
        print(
            f"{row['size']:>9} {row['page']:>8.0f} {row['page_all']:>8.0f} "
            f"{row['page_month']:>9.0f} {scanned} "
            f"{row['attempts_csv']:>9.0f} {row['csv_lines']:>10} {rate(row):>8.0f} "
            f"{row['questions_csv']:>8.0f} {row['peak_kib']:>9.0f} {row['load']:>5.1f}"
        )
    print("ratios from one size to the next (10x the attempts):")
    for before, after in zip(results, results[1:], strict=False):
        print(
            f"  {before['size']:>7} -> {after['size']:<7} "
            f"page x{after['page'] / before['page']:.1f}, "
            f"all x{after['page_all'] / before['page_all']:.1f}, "
            f"attempts.csv lines/s x{rate(after) / rate(before):.2f}, "
            f"questions.csv x{after['questions_csv'] / before['questions_csv']:.1f}, "
            f"CSV peak memory x{after['peak_kib'] / before['peak_kib']:.2f}"
        )
    target = max(results[-1]["page"], results[-1]["page_all"])
    verdict = "meets" if target < 500 else "MISSES"
    print(
        f"report page at {SIZES[-1]:,} attempts (first or all attempts): {target:.0f} ms, "
        f"{verdict} the 500 ms target"
    )


if __name__ == "__main__":
    main()
