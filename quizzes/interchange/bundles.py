"""Whole-site bundles (docs/quiz-format.md): every guide path and quiz in one `.zip`.

A bundle holds `guides.yaml` (the guides file), `quizzes/<slug>.yaml` (one quiz
file each) and, for the images of the texts, `images/<name>`. It is written
deterministically (sorted names, fixed dates and permissions), so exporting the
same content twice gives the same bytes. The zip itself is read and written by
`archive`, under its limits; a bundle adds its layout of names.
"""

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.core.files.storage import default_storage
from django.utils.translation import gettext

from quizzes.interchange.archive import archive_names, archive_read, archive_write
from quizzes.interchange.errors import QuizFileError
from quizzes.interchange.quizfile import (
    ARCHIVE_IMAGES,
    guide_paths_export,
    image_references,
    quiz_export,
    quiz_file_dump,
    quiz_file_read,
)
from quizzes.models import Quiz

GUIDES_NAME = "guides.yaml"
QUIZ_DIR = "quizzes/"

_QUIZ_NAME = re.compile(r"quizzes/([a-z0-9-]+)\.yaml")
_IMAGE_NAME = re.compile(re.escape(ARCHIVE_IMAGES) + r"[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*")


@dataclass(frozen=True)
class Bundle:
    """What a bundle holds: the guides file (or None), the quiz files by entry name, images."""

    guides: dict | None
    quizzes: tuple[tuple[str, dict], ...]
    images: dict[str, bytes] = field(default_factory=dict)


def bundle_export() -> bytes:
    """Every guide path, quiz, question and choice as a bundle."""
    entries = {GUIDES_NAME: quiz_file_dump(guide_paths_export()).encode()}
    return archive_write(entries | _quiz_entries(Quiz.objects.order_by("slug")))


def quizzes_bundle(quizzes: Iterable[Quiz]) -> bytes:
    """Some quizzes as a bundle without guides.yaml: their files and the images they show.
    Importing it writes those quizzes and leaves the rest of the site as it is."""
    return archive_write(_quiz_entries(quizzes))


def _quiz_entries(quizzes: Iterable[Quiz]) -> dict[str, bytes]:
    entries = {}
    for quiz in quizzes:
        data = quiz_export(quiz=quiz)
        entries[f"{QUIZ_DIR}{quiz.slug}.yaml"] = quiz_file_dump(data).encode()
        for name in image_references(data):
            with default_storage.open(name, "rb") as image:
                entries[ARCHIVE_IMAGES + posixpath.basename(name)] = image.read()
    return entries


def is_quiz_archive(content: bytes) -> bool:
    """A .zip of one quiz and its images (quizfile.quiz_archive), not of a whole site."""
    names = archive_names(content=content) or []
    return any("/" not in name and name.endswith(".yaml") and name != GUIDES_NAME for name in names)


def bundle_read(*, content: bytes) -> Bundle:
    """The files of a bundle, checked; raise QuizFileError naming the entry at fault.

    Beyond what `archive` checks of every zip, a bundle's names are only those
    of the layout above.
    """
    guides = None
    quizzes = []
    images = {}
    for name, data in archive_read(content=content, name_problem=_layout_problem).items():
        if name.startswith(ARCHIVE_IMAGES):
            images[name.removeprefix(ARCHIVE_IMAGES)] = data
            continue
        try:
            parsed = quiz_file_read(content=data)
        except QuizFileError as error:
            raise QuizFileError(in_entry(name, error.errors)) from None
        if name == GUIDES_NAME:
            guides = parsed
        else:
            quizzes.append((name, parsed))
    return Bundle(guides=guides, quizzes=tuple(quizzes), images=images)


def _layout_problem(name: str) -> str | None:
    if name == GUIDES_NAME or _QUIZ_NAME.fullmatch(name) or _IMAGE_NAME.fullmatch(name):
        return None
    return gettext("not a place a bundle has: guides.yaml, quizzes/<slug>.yaml or images/<name>.")


def in_entry(name: str, errors: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Errors in one file of a bundle, placed in it: "quizzes/x.yaml, question 2"."""
    return [(f"{name}, {place}" if place else name, message) for place, message in errors]
