"""Every zip the site reads or writes (bundles, a quiz with its images, the admin's export of
several quizzes), under one set of limits.

Reading checks the archive's directory before any entry is read: its size, the number of
entries, each name (relative, inside the archive, given once, in the caller's layout), each
entry's declared size and compression ratio, and their total. Reading an entry stops at the
size the directory declares, so an entry that lies about its size can't grow. Writing gives
bytes that depend on the entries only (sorted, dated 1980, mode 644, compressed at level 9)
and holds the archive it writes to the same rules: what the site exports, it can import.
"""

import io
import zipfile
import zlib
from collections.abc import Callable

from django.utils.translation import gettext

from quizzes.interchange.errors import QuizFileError

MAX_ARCHIVE_BYTES = 50 * 2**20  # The archive itself.
MAX_ENTRIES = 2_000  # Files in one archive.
MAX_UNCOMPRESSED = 200 * 2**20  # All entries together, as the archive declares them.
MAX_ENTRY_BYTES = 10 * 2**20  # One entry.
MAX_RATIO = 100  # Uncompressed to compressed size of an entry over 1 MB (a zip bomb's is 1,000).
_RATIO_FROM = 2**20

_DATE = (1980, 1, 1, 0, 0, 0)  # The earliest date a zip can hold: no clock in the bytes.
_PERMISSIONS = 0o644 << 16
_UNIX = 3
_BAD_ZIP = (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError)


def is_zip(content: bytes) -> bool:
    return content.startswith((b"PK\x03\x04", b"PK\x05\x06"))


def archive_names(*, content: bytes) -> list[str] | None:
    """The names of an archive's files, from its directory; None when it is no readable zip."""
    try:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            return [info.filename for info in archive.infolist() if not info.is_dir()]
    except _BAD_ZIP:
        return None


def archive_read(
    *, content: bytes, name_problem: Callable[[str], str | None] = lambda name: None
) -> dict[str, bytes]:
    """The files of an archive by name, sorted, all checked; raise QuizFileError naming the
    entry at fault. `name_problem` says what is wrong with a name outside the caller's layout
    (or None); it is asked before the checks every archive gets."""
    _refuse_if(len(content) > MAX_ARCHIVE_BYTES, "", _too_big(len(content), MAX_ARCHIVE_BYTES))
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
    except _BAD_ZIP:
        message = gettext("The file is not a zip archive, or it is truncated.")
        raise QuizFileError([("", message)]) from None
    with archive:
        infos = [info for info in archive.infolist() if not info.is_dir()]
        _directory_check(infos, name_problem)
        return {
            info.filename: _entry_read(archive, info)
            for info in sorted(infos, key=lambda info: info.filename)
        }


def archive_write(entries: dict[str, bytes]) -> bytes:
    """A zip of `entries` that depends on nothing but them; raise QuizFileError when the site
    could not read it back (a name outside the archive, too many or too large entries)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = _PERMISSIONS
            info.create_system = _UNIX
            archive.writestr(info, entries[name], compresslevel=9)
        _directory_check(archive.infolist(), lambda name: None)
    content = buffer.getvalue()
    _refuse_if(len(content) > MAX_ARCHIVE_BYTES, "", _too_big(len(content), MAX_ARCHIVE_BYTES))
    return content


def _refuse_if(condition: bool, place: str, message: str) -> None:
    if condition:
        raise QuizFileError([(place, message)])


def _too_big(size: int, limit: int) -> str:
    message = gettext("%(size)s MB; at most %(limit)s MB can be imported.")
    return message % {"size": round(size / 2**20, 1), "limit": round(limit / 2**20, 1)}


def _name_problem(name: str) -> str | None:
    if name.startswith("/") or "\\" in name or any(p in ("", ".", "..") for p in name.split("/")):
        return gettext("a path outside the archive's folders.")
    return None


def _directory_check(infos: list[zipfile.ZipInfo], name_problem: Callable) -> None:
    message = gettext("The archive holds %(count)s files; at most %(limit)s are read.")
    _refuse_if(len(infos) > MAX_ENTRIES, "", message % {"count": len(infos), "limit": MAX_ENTRIES})
    errors = []
    for info in infos:
        name = info.filename
        problem = name_problem(name) or _name_problem(name)
        if problem:
            errors.append((name, problem))
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
