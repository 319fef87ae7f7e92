"""Whether each compiled statement (quizsite/queries.py) still pays against the plain ORM.

    .venv/bin/python bench/compiled.py              # on SQLite, in a throwaway database
    DATABASE_URL=$(scripts/postgres url) .venv/bin/python bench/compiled.py

In one run, inside a transaction that is rolled back, on the demo quiz:

- each compiled statement against its ORM twin (the same queryset built and run at each
  call, the model's `objects.create` / `bulk_create`), CALLS calls each;
- the requests that run them (the quiz page, Start, a question page, an answer: the
  script's JSON requests, signed in), REQUEST_ROUNDS whole quizzes each way: with the
  compiled statements the code keeps, and with their ORM twins in their place.

The statements the code no longer compiles (the attempt's INSERT, the quiz page's stamp)
are compiled here as the code had them, so that their figures can be measured again.
Measured with all of them in the code (this script at commit 073e4c0, which also timed
answer_record both ways), a compiled statement saved under 8% of its request but for the
quiz page's status, the attempt's rows and Start's open attempt or count; the answer's four
(its lock, its read of the graded answers, its two INSERTs) saved 14% of it together, and
stay: bench/README.md.

Times are wall-clock (the database's share included), per call, in microseconds.
"""

import os
import statistics
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quizsite.settings")
os.environ.setdefault("DATABASE_URL", f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3")
os.environ.setdefault("DEBUG", "false")  # No query log: it would be timed too.
os.environ.setdefault("HTTPS", "false")  # The test client speaks plain HTTP.
os.environ.setdefault("SECRET_KEY", "benchmark-only")
os.environ.setdefault("ALLOWED_HOSTS", "testserver")

import django  # noqa: E402

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.db.models import Count, Max, Q  # noqa: E402
from django.test import Client, override_settings  # noqa: E402
from django.utils import timezone  # noqa: E402

from bench import answer_value  # noqa: E402  (bench/bench.py, beside this script)
from quizsite.queries import CompiledInsert, CompiledQuery, Placeholder  # noqa: E402
from quizzes.learning import selectors, services  # noqa: E402
from quizzes.models import Answer, AnswerChoice, Attempt, AttemptKind, Quiz  # noqa: E402
from quizzes.snapshots import quiz_content  # noqa: E402

CALLS = int(os.environ.get("CALLS", 20_000))
REQUEST_ROUNDS = int(os.environ.get("REQUEST_ROUNDS", 150))


# The statements the code compiled until the figures showed that they did not pay, alone
# or with the others of their request.
_INSERT_ATTEMPT = CompiledInsert(
    Attempt,
    *("public_id", "quiz", "user", "learner_key", "language", "started_at", "is_first"),
    *("kind", "question_ids"),
    returning_pk=True,
)
# The answer's, which pay together (bench/README.md), as the code has them.
_LOCK_ATTEMPT, _GRADED = services._LOCK_ATTEMPT, services._GRADED
_ANSWER_FKS, _INSERT_ANSWER, _INSERT_PICKS = (
    services._ANSWER_FKS,
    services._INSERT_ANSWER,
    services._INSERT_PICKS,
)
_PUBLISHED_QUIZ_STAMP = CompiledQuery(
    Quiz.objects.filter(slug=Placeholder("slug"), is_published=True)
    .order_by()
    .values_list("pk", "updated_at")
)


# The ORM twins: what each compiled statement stands for, built and run at each call. Each
# reads the columns its statement reads (`Row._fields`, taken before orm_twins() puts the
# twins in the statements' place), so that a column the code adds to one is read by its
# twin too; main() checks that both give the same rows.
_OPEN_OR_COUNT_COLUMNS = services._OPEN_OR_COUNT["user"].Row._fields
_ATTEMPT_ROWS_COLUMNS = selectors._USER_ATTEMPT_ROWS.Row._fields


def orm_open_or_count(*, quiz, kind, **learner):
    open_now = Q(kind=kind, completed_at=None, abandoned_at=None, assignment=None)
    return list(
        Attempt.objects.filter(quiz=quiz, **learner)
        .order_by()
        .values("quiz")
        .annotate(
            open_id=Max("pk", filter=open_now),
            quiz_attempts=Count("pk", filter=Q(kind=AttemptKind.QUIZ)),
        )
        .values_list(*_OPEN_OR_COUNT_COLUMNS, named=True)
    )


def orm_insert_attempt(values: dict) -> int:
    fields = dict(values, quiz_id=values["quiz"], user_id=values["user"])
    del fields["quiz"], fields["user"]
    return Attempt.objects.create(**fields).pk


def orm_lock_attempt(*, id):
    return list(
        Attempt.objects.select_for_update()
        .filter(pk=id)
        .values_list(*_LOCK_ATTEMPT.Row._fields, named=True)
    )


def orm_graded(*, attempt):
    return list(
        Answer.objects.filter(attempt=attempt)
        .order_by()
        .values_list(*_GRADED.Row._fields, named=True)
    )


def orm_insert_answer(values: dict) -> int:
    return Answer.objects.create(
        **{f"{k}_id" if k in _ANSWER_FKS else k: v for k, v in values.items()}
    ).pk


def orm_insert_picks(*rows: dict) -> None:
    AnswerChoice.objects.bulk_create(
        [AnswerChoice(answer_id=row["answer"], choice_id=row["choice"]) for row in rows]
    )


def orm_attempt_rows(*, public_id, **learner):
    return list(
        Attempt.objects.filter(public_id=public_id, **learner)
        .order_by()
        .values_list(*_ATTEMPT_ROWS_COLUMNS, named=True)
    )


def orm_quiz_stamp(*, slug):
    return list(
        Quiz.objects.filter(slug=slug, is_published=True)
        .order_by()
        .values_list("pk", "updated_at", named=True)
    )


def orm_quiz_status(*, quiz, **learner):
    return list(selectors._status_rows(Attempt.objects.filter(quiz=quiz, **learner)))


# Where each twin goes in the code, to run the real paths with it.
TWINS = {
    (selectors, "_USER_ATTEMPT_ROWS"): lambda **kw: orm_attempt_rows(**kw),
    (selectors, "_USER_QUIZ_STATUS"): lambda **kw: orm_quiz_status(**kw),
    (services, "_LOCK_ATTEMPT"): lambda **kw: orm_lock_attempt(**kw),
    (services, "_GRADED"): lambda **kw: orm_graded(**kw),
    (services, "_INSERT_ANSWER"): orm_insert_answer,
    (services, "_INSERT_PICKS"): orm_insert_picks,
}


@contextmanager
def orm_twins():
    saved = {place: getattr(*place) for place in TWINS}
    saved_open = dict(services._OPEN_OR_COUNT)
    for (module, name), twin in TWINS.items():
        setattr(module, name, twin)
    services._OPEN_OR_COUNT["user"] = lambda **kw: orm_open_or_count(**kw)
    services._OPEN_OR_COUNT["key"] = lambda **kw: orm_open_or_count(user=None, **kw)
    try:
        yield
    finally:
        for (module, name), statement in saved.items():
            setattr(module, name, statement)
        services._OPEN_OR_COUNT.update(saved_open)


BLOCK = 500  # Calls run in turn, compiled then ORM, so that both see the same load.


def race(compiled, orm, compiled_calls, orm_calls) -> tuple[float, float]:
    """Per call, µs: the median over blocks of BLOCK calls, the two ways taking turns. Each
    call is a (positional, keyword) pair of arguments. The CPU times of this process go to
    CPU."""
    blocks = {"compiled": [], "orm": []}
    cpu = {"compiled": [], "orm": []}
    for at in range(0, len(compiled_calls), BLOCK):
        for way, function, calls in (
            ("compiled", compiled, compiled_calls),
            ("orm", orm, orm_calls),
        ):
            chunk = calls[at : at + BLOCK]
            start, start_cpu = time.perf_counter(), time.process_time()
            for args, kwargs in chunk:
                function(*args, **kwargs)
            blocks[way].append((time.perf_counter() - start) * 1e6 / len(chunk))
            cpu[way].append((time.process_time() - start_cpu) * 1e6 / len(chunk))
    CPU.append((statistics.median(cpu["compiled"]), statistics.median(cpu["orm"])))
    return statistics.median(blocks["compiled"]), statistics.median(blocks["orm"])


CPU: list[tuple[float, float]] = []


def row_of(row) -> tuple:
    return tuple(sorted(row._asdict().items()))


def statements(quiz, content, user) -> list[tuple[str, float, float]]:
    """Each compiled statement against its twin, CALLS calls each (warmed up first)."""
    # An attempt with half its questions answered, to read and to lock.
    attempt = services.attempt_start(quiz=content, user=user)
    for question in content.questions[: len(content.questions) // 2]:
        services.answer_record(
            attempt=attempt, quiz=content, question=question, choices=question.choices[:1]
        )
    results = []

    def compare(name, compiled, twin, kwargs):
        # By name where both are named: a values_list() filtered again has its columns in an
        # order that varies from process to process (the compiled rows' names follow it).
        got, want = compiled(**kwargs), twin(**kwargs)
        if not all(hasattr(r, "_asdict") for r in got + want):
            got, want = [tuple(r) for r in got], [tuple(r) for r in want]
        else:
            got, want = [row_of(r) for r in got], [row_of(r) for r in want]
        assert got == want, (name, got, want)
        calls = [((), kwargs)] * CALLS
        results.append((name, *race(compiled, twin, calls, calls)))

    compare(
        "open or count (Start)",
        services._OPEN_OR_COUNT["user"],
        orm_open_or_count,
        {"quiz": quiz.pk, "kind": AttemptKind.QUIZ, "user": user.pk},
    )
    compare("lock attempt (answer)", _LOCK_ATTEMPT, orm_lock_attempt, {"id": attempt.pk})
    compare("graded (answer)", _GRADED, orm_graded, {"attempt": attempt.pk})
    compare(
        "attempt rows (every attempt page)",
        selectors._USER_ATTEMPT_ROWS,
        orm_attempt_rows,
        {"public_id": attempt.public_id, "user": user.pk},
    )
    compare(
        "quiz stamp (quiz page)",
        _PUBLISHED_QUIZ_STAMP,
        orm_quiz_stamp,
        {"slug": quiz.slug},
    )
    compare(
        "quiz status (quiz page)",
        selectors._USER_QUIZ_STATUS,
        orm_quiz_status,
        {"quiz": quiz.pk, "user": user.pk},
    )

    # The inserts: attempts (each its own learner key, none first), then an answer to each
    # of them, then its pick, each way its own rows.
    now = timezone.now()

    def attempt_row(way, n):
        return {
            "public_id": uuid.uuid4(),
            "quiz": quiz.pk,
            "user": None,
            "learner_key": f"{way}-{n}",
            "language": "en",
            "started_at": now,
            "is_first": False,
            "kind": AttemptKind.QUIZ,
            "question_ids": None,
        }

    rows = {way: [((attempt_row(way, n),), {}) for n in range(CALLS)] for way in WAYS}
    inserts = {"compiled": _INSERT_ATTEMPT, "orm": orm_insert_attempt}
    results.append(("insert attempt (Start)", *timed_inserts(inserts, rows)))
    attempt_ids = {way: last_ids(Attempt, f"{way}-", CALLS) for way in WAYS}

    question = content.questions[0]
    choice = question.choices[0]
    rows = {
        way: [
            (
                (
                    {
                        "attempt": pk,
                        "question": question.pk,
                        "choice": choice.pk,
                        "response": "",
                        "variant": "",
                        "credit": 1,
                        "is_correct": True,
                        "answered_at": now,
                    },
                ),
                {},
            )
            for pk in attempt_ids[way]
        ]
        for way in WAYS
    }
    inserts = {"compiled": _INSERT_ANSWER, "orm": orm_insert_answer}
    results.append(("insert answer (answer)", *timed_inserts(inserts, rows)))

    answer_ids = {
        way: list(Answer.objects.filter(attempt__in=attempt_ids[way]).values_list("pk", flat=True))
        for way in WAYS
    }
    rows = {
        way: [(({"answer": pk, "choice": choice.pk},), {}) for pk in answer_ids[way]]
        for way in WAYS
    }
    inserts = {"compiled": _INSERT_PICKS, "orm": orm_insert_picks}
    results.append(("insert picks (answer)", *timed_inserts(inserts, rows)))
    return results


WAYS = ("compiled", "orm")


def timed_inserts(inserts, rows) -> tuple[float, float]:
    return race(inserts["compiled"], inserts["orm"], rows["compiled"], rows["orm"])


def last_ids(model, key_prefix, count) -> list[int]:
    return list(
        model.objects.filter(learner_key__startswith=key_prefix).values_list("pk", flat=True)
    )


# Production's settings but the static files' manifest, which collectstatic would make.
PLAIN_STATIC = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}


@override_settings(STORAGES=PLAIN_STATIC)
def requests(quiz, content) -> dict[str, tuple[float, float]]:
    """The pages that run the statements, signed in, as the page's script asks for them: a
    whole quiz each way in turn, REQUEST_ROUNDS times; the median of each request."""
    timings = {
        way: {"quiz page": [], "Start": [], "question page": [], "answer": []} for way in WAYS
    }
    cpu_timings = {way: {name: [] for name in timings[way]} for way in WAYS}
    clients = {}
    for way in WAYS:
        clients[way] = Client(HTTP_ACCEPT="application/json")
        clients[way].force_login(User.objects.create_user(f"requests-{way}"))

    def take_quiz(way):
        client = clients[way]

        def timed(name, call, *args, **kwargs):
            start, start_cpu = time.perf_counter(), time.process_time()
            response = call(*args, **kwargs)
            timings[way][name].append((time.perf_counter() - start) * 1e6)
            cpu_timings[way][name].append((time.process_time() - start_cpu) * 1e6)
            assert response.status_code == 200, (name, response.status_code)
            return response

        timed("quiz page", client.get, f"/en/quizzes/{quiz.slug}/", HTTP_ACCEPT="text/html")
        timed("Start", client.post, f"/en/quizzes/{quiz.slug}/start/")
        attempt = Attempt.objects.get(
            user__username=f"requests-{way}", completed_at=None, abandoned_at=None
        )
        for number in range(1, len(content.questions) + 1):
            url = f"/en/attempts/{attempt.public_id}/questions/{number}/"
            page = timed("question page", client.get, url, HTTP_ACCEPT="text/html")
            timed("answer", client.post, url, {"choice": answer_value(page.content.decode())})

    take_quiz("compiled"), take_quiz("orm")  # Warm up.
    for way in WAYS:
        timings[way] = {name: [] for name in timings[way]}
        cpu_timings[way] = {name: [] for name in timings[way]}
    for _round in range(REQUEST_ROUNDS):
        take_quiz("compiled")
        with orm_twins():
            take_quiz("orm")
    return {
        name: tuple(statistics.median(t[way][name]) for t in (timings, cpu_timings) for way in WAYS)
        for name in timings["compiled"]
    }


def main() -> None:
    call_command("migrate", verbosity=0)
    with transaction.atomic():
        call_command("loaddemo", verbosity=0)
        quiz = Quiz.objects.get(slug="data-parallelism-quiz")
        content = quiz_content(quiz_id=quiz.pk, updated_at=quiz.updated_at)
        user = User.objects.create_user("bench")
        print(f"database: {connection.vendor}; {CALLS} calls each way, in blocks of {BLOCK}")
        print("wall time per call, µs (median of the blocks)")
        print(f"{'statement':<36}{'compiled':>10}{'ORM':>10}{'saved':>10}   CPU: saved")
        timed = [*statements(quiz, content, user)]
        for (name, compiled, orm), (cpu_compiled, cpu_orm) in zip(timed, CPU, strict=True):
            print(
                f"{name:<36}{compiled:>10.1f}{orm:>10.1f}{orm - compiled:>10.1f}"
                f"   {cpu_compiled:.1f} / {cpu_orm:.1f}: {cpu_orm - cpu_compiled:.1f}"
            )

        print(
            f"requests: {REQUEST_ROUNDS} quizzes of {len(content.questions)} questions each way,"
            " median per request"
        )
        print(f"{'request':<36}{'compiled':>10}{'ORM':>10}{'saved':>10}   CPU: saved")
        for name, (compiled, orm, cpu_compiled, cpu_orm) in requests(quiz, content).items():
            saved, cpu_saved = orm - compiled, cpu_orm - cpu_compiled
            print(
                f"{name:<36}{compiled:>10.1f}{orm:>10.1f}{saved:>10.1f} ({saved / orm:.0%})"
                f"   {cpu_compiled:.1f} / {cpu_orm:.1f}: {cpu_saved:.1f}"
                f" ({cpu_saved / cpu_orm:.0%})"
            )
        transaction.set_rollback(True)


if __name__ == "__main__":
    main()
