"""Whole-site bundles (docs/quiz-format.md): every guide path and quiz in one `.zip`.

A bundle holds `guides.yaml` (the guides file), `quizzes/<slug>.yaml` (one quiz
file each) and, for the images of the texts, `images/<name>`. It is written
deterministically (sorted names, fixed dates and permissions), so exporting the
same content twice gives the same bytes. Reading one checks the archive's
directory before reading any entry: the number of entries, each name, and the
sizes and compression ratios they declare.
"""

import io
import posixpath
import re
import zipfile
import zlib
from dataclasses import dataclass, field

import yaml
from django.core.files.storage import default_storage
from django.utils.translation import gettext

from quizzes.interchange.quizfile import (
    ARCHIVE_IMAGES,
    QuizFileError,
    guide_paths_export,
    image_references,
    quiz_export,
    quiz_file_dump,
    quiz_file_read,
)
from quizzes.models import Quiz

GUIDES_NAME = "guides.yaml"
QUIZ_DIR = "quizzes/"

MAX_BUNDLE_BYTES = 50 * 2**20  # The archive itself.
MAX_ENTRIES = 2_000  # Files in one archive.
MAX_UNCOMPRESSED = 200 * 2**20  # All entries together, as the archive declares them.
MAX_ENTRY_BYTES = 10 * 2**20  # One entry.
MAX_RATIO = 100  # Uncompressed to compressed size of an entry over 1 MB (a zip bomb's is 1,000).
_RATIO_FROM = 2**20

_DATE = (1980, 1, 1, 0, 0, 0)  # The earliest date a zip can hold: no clock in the bytes.
_PERMISSIONS = 0o644 << 16
_UNIX = 3
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
    for quiz in Quiz.objects.order_by("slug"):
        data = quiz_export(quiz=quiz)
        entries[f"{QUIZ_DIR}{quiz.slug}.yaml"] = quiz_file_dump(data).encode()
        for name in image_references(data):
            with default_storage.open(name, "rb") as image:
                entries[ARCHIVE_IMAGES + posixpath.basename(name)] = image.read()
    return bundle_zip(entries)


def is_quiz_archive(content: bytes) -> bool:
    """A .zip of one quiz and its images (quizfile.quiz_archive), not of a whole site."""
    try:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            names = archive.namelist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError):
        return False
    return any("/" not in name and name.endswith(".yaml") and name != GUIDES_NAME for name in names)


def bundle_zip(entries: dict[str, bytes]) -> bytes:
    """A zip of `entries` that depends on nothing but them: sorted, dated 1980, mode 644."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = _PERMISSIONS
            info.create_system = _UNIX
            archive.writestr(info, entries[name], compresslevel=9)
    return buffer.getvalue()


def is_zip(content: bytes) -> bool:
    return content.startswith((b"PK\x03\x04", b"PK\x05\x06"))


def bundle_read(*, content: bytes) -> Bundle:
    """The files of a bundle, checked; raise QuizFileError naming the entry at fault.

    The archive's directory is checked before any entry is read: at most
    MAX_ENTRIES entries, names only in the layout above (no `..`, no absolute
    path), no entry over MAX_ENTRY_BYTES or compressed more than MAX_RATIO
    times, MAX_UNCOMPRESSED bytes together. Reading stops at the sizes the
    directory declares, so an entry that lies about its size can't grow.
    """
    _refuse_if(len(content) > MAX_BUNDLE_BYTES, "", _too_big(len(content), MAX_BUNDLE_BYTES))
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError):
        message = gettext("The file is not a zip archive, or it is truncated.")
        raise QuizFileError([("", message)]) from None
    with archive:
        infos = [info for info in archive.infolist() if not info.is_dir()]
        _directory_check(infos)
        guides = None
        quizzes = []
        images = {}
        for info in sorted(infos, key=lambda info: info.filename):
            data = _entry_read(archive, info)
            if info.filename.startswith(ARCHIVE_IMAGES):
                images[info.filename.removeprefix(ARCHIVE_IMAGES)] = data
                continue
            try:
                parsed = yaml_file_read(content=data)
            except QuizFileError as error:
                raise QuizFileError(in_entry(info.filename, error.errors)) from None
            if info.filename == GUIDES_NAME:
                guides = parsed
            else:
                quizzes.append((info.filename, parsed))
    return Bundle(guides=guides, quizzes=tuple(quizzes), images=images)


def in_entry(name: str, errors: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Errors in one file of a bundle, placed in it: "quizzes/x.yaml, question 2"."""
    return [(f"{name}, {place}" if place else name, message) for place, message in errors]


def yaml_file_read(*, content: bytes) -> dict:
    """A quiz or guides file read as quiz_file_read does, its YAML aliases (`*name`) refused:
    safe_load shares what an alias names, but checking the file goes over every copy, so a
    few hundred bytes of aliases nested in aliases would read as millions of questions."""
    data = quiz_file_read(content=content)
    if b"*" in content and any(isinstance(event, yaml.AliasEvent) for event in yaml.parse(content)):
        raise QuizFileError([("", gettext("YAML aliases (*name) are not allowed in a quiz file."))])
    return data


def _refuse_if(condition: bool, place: str, message: str) -> None:
    if condition:
        raise QuizFileError([(place, message)])


def _too_big(size: int, limit: int) -> str:
    message = gettext("%(size)s MB; at most %(limit)s MB can be imported.")
    return message % {"size": round(size / 2**20, 1), "limit": round(limit / 2**20, 1)}


def _directory_check(infos: list[zipfile.ZipInfo]) -> None:
    message = gettext("The archive holds %(count)s files; at most %(limit)s are read.")
    _refuse_if(len(infos) > MAX_ENTRIES, "", message % {"count": len(infos), "limit": MAX_ENTRIES})
    errors = []
    for info in infos:
        name = info.filename
        if not (name == GUIDES_NAME or _QUIZ_NAME.fullmatch(name) or _IMAGE_NAME.fullmatch(name)):
            message = gettext(
                "not a place a bundle has: guides.yaml, quizzes/<slug>.yaml or images/<name>."
            )
            errors.append((name, message))
        elif any(part in ("", ".", "..") for part in name.split("/")):
            errors.append((name, gettext("a path outside the archive's folders.")))
        elif info.flag_bits & 0x1:
            errors.append((name, gettext("an encrypted file.")))
        elif info.file_size > MAX_ENTRY_BYTES:
            errors.append((name, _too_big(info.file_size, MAX_ENTRY_BYTES)))
        elif info.file_size > _RATIO_FROM and info.file_size > MAX_RATIO * info.compress_size:
            message = gettext("compressed %(ratio)s times: at most %(limit)s (a zip bomb?).")
            ratio = info.file_size // max(info.compress_size, 1)
            errors.append((name, message % {"ratio": ratio, "limit": MAX_RATIO}))
    if len({info.filename for info in infos}) < len(infos):
        errors.append(("", gettext("The archive holds the same name twice.")))
    if errors:
        raise QuizFileError(errors)
    total = sum(info.file_size for info in infos)
    _refuse_if(total > MAX_UNCOMPRESSED, "", _too_big(total, MAX_UNCOMPRESSED))


def _entry_read(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    try:
        with archive.open(info) as entry:
            data = entry.read(info.file_size + 1)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, OSError):
        message = gettext("broken or truncated in the archive.")
        raise QuizFileError([(info.filename, message)]) from None
    _refuse_if(len(data) != info.file_size, info.filename, gettext("broken or truncated."))
    return data
