"""Time a large bank through the admin's import: upload and preview, then confirm.

    .venv/bin/python bench/import_bank.py                                   # SQLite
    QUESTIONS=5000 FORMAT=gift .venv/bin/python bench/import_bank.py        # 5,000, GIFT
    DATABASE_URL=$(scripts/postgres url) .venv/bin/python bench/import_bank.py   # PostgreSQL

Builds a bank of QUESTIONS questions (2,000 by default) in categories of PER_QUIZ (100: one
quiz's pages show at most `rendering.MAX_QUIZ_SOURCE_LENGTH` characters a language, about a
hundred such questions), each with Markdown, a code block, maths and four choices with
feedback, as real questions have. FORMAT says how: `bundle` (docs/quiz-format.md: a quiz
file a category, each question in English and French), `gift` or `moodle-xml` (one file, a
category each, in English: as the site exports them). It imports it twice through the
admin's pages with Django's test client, signed in as a superuser: first as new quizzes, then
with every question's texts changed (an update of every row). For each it prints the
preview's and the confirm's wall time and queries, and how they compare with gunicorn's
worker timeout (gunicorn.conf.py), which the requests must stay well under. SQLite by
default, in a file of its own (var/bench-import.sqlite3, made anew); DATABASE_URL for
PostgreSQL, whose database it migrates and empties of quizzes.
"""

import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SQLITE = ROOT / "var" / "bench-import.sqlite3"
if not os.environ.get("DATABASE_URL"):
    SQLITE.parent.mkdir(exist_ok=True)
    SQLITE.unlink(missing_ok=True)
    os.environ["DATABASE_URL"] = f"sqlite:///{SQLITE}"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quizsite.settings")
os.environ.setdefault("DEBUG", "false")
os.environ.setdefault("SECRET_KEY", "benchmark-only")
os.environ.setdefault("ALLOWED_HOSTS", "testserver")
os.environ.setdefault("HTTPS", "false")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.core.files.uploadedfile import SimpleUploadedFile  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import override_settings  # noqa: E402

from quizzes.interchange.archive import archive_write  # noqa: E402
from quizzes.interchange.bundles import QUIZ_DIR  # noqa: E402
from quizzes.interchange.gift import gift_export  # noqa: E402
from quizzes.interchange.moodle_xml import moodle_xml_export_quizzes  # noqa: E402
from quizzes.interchange.quizfile import quiz_file_dump  # noqa: E402
from quizzes.models import Question, Quiz  # noqa: E402

QUESTIONS = int(os.environ.get("QUESTIONS", 2000))
PER_QUIZ = int(os.environ.get("PER_QUIZ", 100))
FORMAT = os.environ.get("FORMAT", "bundle")
# BACKGROUND=1: as the site imports a large file, its preview and confirm by the task worker
# (timed apart from the requests); else both in the requests, as a small file is.
BACKGROUND = os.environ.get("BACKGROUND") == "1"
FILE_NAMES = {"bundle": "bench-bank.zip", "gift": "bench-bank.gift", "moodle-xml": "bench-bank.xml"}
SLUG = "bench-bank"
UPLOAD = "/admin/quizzes/quiz/import/"
CONFIRM = "/admin/quizzes/quiz/import/confirm/"
TOKEN = re.compile(r'name="token" value="([^"]+)"')


def gunicorn_timeout() -> int:
    settings = {}
    exec((ROOT / "gunicorn.conf.py").read_text(), settings)  # noqa: S102 (our own file)
    return settings["timeout"]


def question(number: int, edition: int) -> dict:
    """A question as an editor writes one: Markdown, a code block and maths, in two languages."""
    tag = f"{number}.{edition}"
    code = (
        "```python\n"
        f"for step, batch in enumerate(loader):  # {tag}\n"
        "    loss = model(batch).mean() / accumulation\n"
        "    loss.backward()\n"
        "```"
    )
    return {
        "key": f"bank-{number}",  # The question's identity from one edition to the next.
        "prompt": {
            "en": f"**Question {tag}.** What does this loop print after `{number}` steps?\n\n"
            f"{code}",
            "fr": f"**Question {tag}.** Qu’affiche cette boucle après `{number}` pas ?\n\n{code}",
        },
        "explanation": {
            "en": f"Each replica averages its gradient: $\\bar{{g}} = \\frac{{1}}{{W}}"
            f" \\sum_{{i=1}}^{{W}} g_{{i,{number}}}$ with $W = {number}$. See *step {tag}*.\n\n"
            "- the loss is divided by the accumulation steps;\n- `backward()` adds up.",
            "fr": f"Chaque réplique moyenne son gradient : $\\bar{{g}} = \\frac{{1}}{{W}}"
            f" \\sum_{{i=1}}^{{W}} g_{{i,{number}}}$ avec $W = {number}$. Voir *le pas {tag}*.\n\n"
            "- la perte est divisée par le nombre de pas ;\n- `backward()` additionne.",
        },
        "guide_url": {"en": f"https://example.org/guides/bank/#q{number}"},
        "choices": [
            {
                "text": {
                    "en": f"The mean of $W_{{{number}}}$ gradients ({tag})",
                    "fr": f"La moyenne ({tag})",
                },
                "correct": True,
            },
            {
                "text": {"en": f"`loss` times {number}", "fr": f"`loss` fois {number}"},
                "feedback": {"en": "The loss is *divided*.", "fr": "La perte est *divisée*."},
            },
            {"text": {"en": "Nothing at all", "fr": "Rien du tout"}},
            {"text": {"en": f"An error at step {tag}", "fr": f"Une erreur au pas {tag}"}},
        ],
    }


def quizzes(edition: int) -> list[dict]:
    """The bank's quiz files: PER_QUIZ questions each, QUESTIONS numbered across them."""
    datas = []
    for start in range(0, QUESTIONS, PER_QUIZ):
        part = start // PER_QUIZ + 1
        numbers = range(start + 1, min(start + PER_QUIZ, QUESTIONS) + 1)
        datas.append(
            {
                "slug": f"{SLUG}-{part}",
                "title": {
                    "en": f"Bench bank, part {part}",
                    "fr": f"Banque du banc, partie {part}",
                },
                "level": "advanced",
                "questions": [question(number, edition) for number in numbers],
            }
        )
    return datas


def bank(edition: int) -> bytes:
    """The bank as a file of FORMAT: a bundle of quiz files, or one GIFT or Moodle XML file
    in English, a category a quiz."""
    datas = quizzes(edition)
    if FORMAT == "gift":
        return "\n".join(gift_export(data, language="en") for data in datas).encode()
    if FORMAT == "moodle-xml":
        return moodle_xml_export_quizzes(datas, language="en")
    return archive_write(
        {f"{QUIZ_DIR}{data['slug']}.yaml": quiz_file_dump(data).encode() for data in datas}
    )


def timed(work) -> tuple[str, int, object]:
    """The wall and CPU time of `work()` (this process's, SQLite's work included: on a shared
    machine the wall time is mostly other work's) and its queries (all of them: Django's own
    log keeps 9,000)."""
    queries = []

    def count(execute, sql, params, many, context):
        queries.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        wall, cpu = time.perf_counter(), time.process_time()
        done = work()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return f"{wall:.2f} s ({cpu:.2f} s of CPU), {len(queries)} queries", done


def worker_run() -> str:
    """The task worker until nothing is left: the background import's work."""
    took, _none = timed(lambda: call_command("db_worker", batch=True, interval=0, verbosity=0))
    return f"; then the task worker {took}"


def step(client: Client, url: str, data: dict, ok: int) -> tuple[str, object]:
    """A request and, in the background, the task it started: its timings and its page."""
    took, response = timed(lambda: client.post(url, data))
    if BACKGROUND and response.status_code == 302 and "/progress/" in response.url:
        took += worker_run()
        response = client.get(response.url)
    assert response.status_code == ok, response.content.decode()[:2000]
    return took, response


def import_once(client: Client, content: bytes, label: str, timeout: int) -> None:
    upload = SimpleUploadedFile(FILE_NAMES[FORMAT], content)
    took, response = step(client, UPLOAD, {"file": upload}, 200)
    token = TOKEN.search(response.content.decode())
    assert token, "the preview has nothing to confirm"
    print(f"{label}: preview {took}")
    took, response = step(client, CONFIRM, {"token": token.group(1)}, 200 if BACKGROUND else 302)
    print(f"{label}: confirm {took} (the worker timeout: {timeout} s)")


# Production's settings but the static files' manifest, which collectstatic would make.
PLAIN_STATIC = {
    **settings.STORAGES,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}


@override_settings(STORAGES=PLAIN_STATIC, IMPORT_BACKGROUND_BYTES=0 if BACKGROUND else 2**40)
def main() -> None:
    call_command("migrate", verbosity=0)
    Quiz.objects.filter(slug__startswith=SLUG).delete()
    User.objects.filter(username="bench-admin").delete()
    client = Client()
    client.force_login(User.objects.create_superuser("bench-admin", password=None))
    timeout = gunicorn_timeout()
    first = bank(edition=1)
    print(
        f"{connection.vendor}: {QUESTIONS} questions in {-(-QUESTIONS // PER_QUIZ)} quizzes,"
        f" {4 * QUESTIONS} choices, a {len(first) / 2**20:.1f} MB {FORMAT} file"
    )
    import_once(client, first, "create", timeout)
    import_once(client, bank(edition=2), "update", timeout)
    quizzes = Quiz.objects.filter(slug__startswith=SLUG)
    assert Question.objects.filter(quiz__in=quizzes).count() == QUESTIONS
    updated = Question.objects.filter(quiz__in=quizzes, prompt_en__startswith="**Question ")
    assert updated.filter(prompt_en__contains=".2.**").count() == QUESTIONS
    quizzes.delete()


if __name__ == "__main__":
    main()
