"""How long the learner texts of each demo quiz take to render, and how long reading its
content takes once per process after an edit (`quizzes.snapshots._read`).

    .venv/bin/python bench/render_demo.py     # in a throwaway SQLite database and media folder

A text renders the first time a page shows it, once per content change, process and language
(the kept content holds the HTML), so this is the cost of the first pages after an edit, never
of a page after them. It prints, per quiz, the number of Markdown texts (every language), the
median and best time to render them all, and the median time of `_read`, which renders none.
"""

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
scratch = tempfile.mkdtemp()
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quizsite.settings")
os.environ.setdefault("DATABASE_URL", f"sqlite:///{scratch}/bench.sqlite3")
os.environ.setdefault("MEDIA_ROOT", f"{scratch}/media")
os.environ.setdefault("DEBUG", "false")  # No query log: it would be timed too.
os.environ.setdefault("SECRET_KEY", "benchmark-only")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402

from quizzes import snapshots  # noqa: E402
from quizzes.markup import rendering as markup  # noqa: E402
from quizzes.models import Choice, Question, Quiz, translated_fields  # noqa: E402

ROUNDS = 20


def _texts(quiz: Quiz) -> list[tuple[str, str, bool]]:
    """(source, language, inline) of every Markdown text the quiz's pages show."""
    rows = [quiz, *Question.objects.filter(quiz=quiz), *Choice.objects.filter(question__quiz=quiz)]
    texts = []
    for obj in rows:
        for field in translated_fields(type(obj)):
            kind = snapshots.field_markup(field)
            for code, _name in settings.LANGUAGES:
                source = getattr(obj, f"{field}_{code}") or ""
                if kind and source:
                    texts.append((source, code, kind == "inline"))
    return texts


def _times(action) -> list[float]:
    runs = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        action()
        runs.append(time.perf_counter() - start)
    return runs


def _quiz_times(quiz: Quiz) -> str:
    texts = _texts(quiz)
    render = _times(lambda: [markup.render(s, language=c, inline=i) for s, c, i in texts])
    read = _times(lambda: snapshots._read(quiz.pk))
    ms = 1000
    return (
        f"{quiz.slug}: {len(texts)} texts, rendered in {statistics.median(render) * ms:.1f} ms"
        f" (best {min(render) * ms:.1f}); content read {statistics.median(read) * ms:.1f} ms"
    )


def main() -> None:
    call_command("migrate", verbosity=0)
    call_command("loaddemo", verbosity=0)
    for quiz in Quiz.objects.order_by("slug"):
        print(_quiz_times(quiz))


if __name__ == "__main__":
    main()
