"""Time the score report page and both CSV exports as attempts grow: `make bench-reports`.

Recreates the database named in DATABASE_URL (it must end in "_bench"), loads the
demo content, then seeds the 8-question demo quiz up to 1,000, 10,000 and 100,000
completed attempts. At each size it times the report page (first attempts, the
default, and all attempts) and both CSVs through Django's test client, and
measures the peak Python memory (tracemalloc) while the attempts CSV streams.
"""

import os
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quizsite.settings")
os.environ.setdefault("DEBUG", "false")
os.environ.setdefault("SECRET_KEY", "benchmark-only")
os.environ.setdefault("ALLOWED_HOSTS", "testserver")
os.environ.setdefault("HTTPS", "false")

import django  # noqa: E402
import psycopg  # noqa: E402
from psycopg import sql  # noqa: E402

SIZES = [1_000, 10_000, 100_000]
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


def median_ms(client, url: str, params: dict | None = None) -> float:
    times = []
    for _run in range(RUNS):
        began = time.perf_counter()
        response = client.get(url, params or {})
        if response.streaming:
            for _chunk in response.streaming_content:
                pass
        assert response.status_code == 200, response.status_code
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def peak_stream_kib(client, url: str) -> tuple[float, int]:
    """Peak traced memory while the CSV streams, and the CSV's size in bytes."""
    tracemalloc.start()
    response = client.get(url, {"attempts": "all"})
    size = 0
    for chunk in response.streaming_content:
        size += len(chunk)
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1024, size


def main() -> None:
    recreate_database()
    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    # DEBUG is off, so pages link the hashed static files: without their manifest (a fresh
    # checkout that never ran `make serve`) every page is a 500.
    call_command("collectstatic", interactive=False, verbosity=0)
    call_command("migrate", verbosity=0)
    call_command("loaddemo")
    client = Client()
    client.force_login(User.objects.create_superuser("bench", password=None))
    results = []
    seeded = 0
    for size in SIZES:
        call_command("seedattempts", SLUG, count=size - seeded, seed=size)
        seeded = size
        # VACUUM as well: the seeding's inserts otherwise start autovacuum on the answer
        # tables a minute later, in the middle of the timings (at 100,000 attempts it ran
        # while the page was timed), and a live database is vacuumed long before a report.
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
        client.get(PAGE)  # warm the caches once
        row = {
            "size": size,
            "page": median_ms(client, PAGE),
            "page_all": median_ms(client, PAGE, {"attempts": "all"}),
            "attempts_csv": median_ms(client, PAGE + "attempts.csv", {"attempts": "all"}),
            "questions_csv": median_ms(client, PAGE + "questions.csv", {"attempts": "all"}),
        }
        row["peak_kib"], row["csv_bytes"] = peak_stream_kib(client, PAGE + "attempts.csv")
        results.append(row)
        print(
            f"{size:>7} attempts: page {row['page']:.0f} ms "
            f"(all attempts {row['page_all']:.0f} ms), "
            f"attempts.csv {row['attempts_csv']:.0f} ms ({row['csv_bytes'] / 1e6:.1f} MB), "
            f"questions.csv {row['questions_csv']:.0f} ms, "
            f"CSV stream peak {row['peak_kib']:.0f} KiB",
            flush=True,
        )
    print()
    print(
        f"{'attempts':>9} {'page ms':>8} {'all ms':>8} {'att.csv':>9} {'q.csv':>8} {'peak KiB':>9}"
    )
    for row in results:
        print(
            f"{row['size']:>9} {row['page']:>8.0f} {row['page_all']:>8.0f} "
            f"{row['attempts_csv']:>9.0f} {row['questions_csv']:>8.0f} {row['peak_kib']:>9.0f}"
        )
    print("ratios from one size to the next (10x the attempts):")
    for before, after in zip(results, results[1:], strict=False):
        print(
            f"  {before['size']:>7} -> {after['size']:<7} "
            f"page x{after['page'] / before['page']:.1f}, "
            f"all x{after['page_all'] / before['page_all']:.1f}, "
            f"attempts.csv x{after['attempts_csv'] / before['attempts_csv']:.1f}, "
            f"questions.csv x{after['questions_csv'] / before['questions_csv']:.1f}, "
            f"CSV peak memory x{after['peak_kib'] / before['peak_kib']:.2f}"
        )
    target = results[-1]["page"]
    verdict = "meets" if target < 500 else "MISSES"
    print(f"report page at {SIZES[-1]:,} attempts: {target:.0f} ms, {verdict} the 500 ms target")


if __name__ == "__main__":
    main()
