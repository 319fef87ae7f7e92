"""Every zip goes through quizzes/interchange/archive.py: one set of limits for bundles and
for a quiz with its images, each refusal with its message, and nothing written."""

import io
import warnings
import zipfile

import pytest
from django.core.management import CommandError, call_command

from quizzes.interchange import archive
from quizzes.interchange.errors import QuizFileError
from quizzes.interchange.importing import import_plan
from quizzes.models import ContentImage, Question, Quiz

QUIZ = b"slug: tiny\ntitle: Tiny\n"


def _zip(entries: list[tuple[str, bytes]]) -> bytes:
    """A zip written as a hostile tool might: any names, twice if asked, no fixed dates."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of a duplicate name, and writes it.
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as written:
            for name, data in entries:
                written.writestr(name, data)
    return buffer.getvalue()


BAD_ARCHIVES = {
    "zip bomb": (
        lambda: _zip([("tiny.yaml", QUIZ), ("images/a.png", b"\0" * (8 * 2**20))]),
        "images/a.png: compressed 1",
    ),
    "too many entries": (
        lambda: _zip([("tiny.yaml", QUIZ)] + [(f"images/{n}.png", b"") for n in range(2_000)]),
        "The archive holds 2001 files; at most 2000 are read.",
    ),
    "path traversal": (
        lambda: _zip([("tiny.yaml", QUIZ), ("images/../../etc/passwd", b"x")]),
        "images/../../etc/passwd: unexpected file in the archive",
    ),
    "duplicate name": (
        lambda: _zip([("tiny.yaml", QUIZ), ("images/a.png", b"1"), ("images/a.png", b"2")]),
        "The archive holds the same name twice.",
    ),
    "truncated file": (
        lambda: _zip([("tiny.yaml", QUIZ), ("images/a.png", b"png" * 1000)])[:-40],
        "The file is not a zip archive, or it is truncated.",
    ),
    "entry over 10 MB": (
        lambda: _zip([("tiny.yaml", QUIZ), ("images/a.png", b"\0" * (11 * 2**20))]),
        "images/a.png: 11.0 MB; at most 10.0 MB can be imported.",
    ),
}


def _messages(errors) -> list[str]:
    return QuizFileError(list(errors)).messages


@pytest.mark.parametrize("case", BAD_ARCHIVES)
def test_a_bad_quiz_archive_is_refused_with_its_message_and_nothing_written(
    db, tmp_path, media_root, case
):
    make_content, message = BAD_ARCHIVES[case]
    content = make_content()
    plan = import_plan(content=content, name="tiny.zip")
    assert not plan.can_apply
    assert any(message in line for line in _messages(plan.errors)), plan.errors
    path = tmp_path / "tiny.zip"
    path.write_bytes(content)
    with pytest.raises(CommandError, match="was not imported"):
        call_command("importquiz", str(path), stdout=io.StringIO())
    assert not Quiz.objects.exists() and not Question.objects.exists()
    assert not ContentImage.objects.exists()
    assert not (media_root / "content").exists()


def test_the_generic_names_rules_hold_whatever_the_callers_layout():
    for name in ("/etc/passwd", "a/../b", "a//b", "./a", "a\\b"):
        with pytest.raises(QuizFileError) as error:
            archive.archive_read(content=_zip([(name, b"x")]))
        assert error.value.errors == [(name, "a path outside the archive's folders.")]


def test_an_archive_over_50_mb_is_refused_before_it_is_opened():
    with pytest.raises(QuizFileError) as error:
        archive.archive_read(content=b"PK\x03\x04" + b" " * archive.MAX_ARCHIVE_BYTES)
    assert error.value.messages == ["50.0 MB; at most 50.0 MB can be imported."]


def test_an_entry_whose_data_is_damaged_is_refused():
    content = archive.archive_write({"a.yaml": b"slug: x\n" * 200})
    info = zipfile.ZipFile(io.BytesIO(content)).infolist()[0]
    start = info.header_offset + 30 + len(info.filename.encode()) + 5
    damaged = content[:start] + bytes([content[start] ^ 0xFF]) + content[start + 1 :]
    with pytest.raises(QuizFileError) as error:
        archive.archive_read(content=damaged)
    assert error.value.messages[0].startswith("a.yaml: broken or truncated")


def test_writing_is_deterministic_and_reads_back():
    entries = {"b.yaml": b"two", "a.yaml": b"one", "images/c.png": b"three"}
    content = archive.archive_write(entries)
    assert content == archive.archive_write(dict(reversed(entries.items())))
    infos = zipfile.ZipFile(io.BytesIO(content)).infolist()
    assert [info.filename for info in infos] == ["a.yaml", "b.yaml", "images/c.png"]
    assert {info.date_time for info in infos} == {(1980, 1, 1, 0, 0, 0)}
    assert archive.archive_read(content=content) == dict(sorted(entries.items()))


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({"../escape.yaml": b"x"}, "../escape.yaml: a path outside the archive's folders."),
        ({"bomb.yaml": b"\0" * (2 * 2**20)}, "bomb.yaml: compressed 1"),
        ({f"{n}.yaml": b"" for n in range(2_001)}, "The archive holds 2001 files"),
    ],
)
def test_the_writer_refuses_what_the_reader_would(entries, message):
    with pytest.raises(QuizFileError) as error:
        archive.archive_write(entries)
    assert error.value.messages[0].startswith(message)
