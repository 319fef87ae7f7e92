"""An import file kept between the admin's preview and the editor's confirmation.

The file is stored under a random name in the "private" storage, which no URL serves (the
default storage is the media, public); the page
carries a signed token naming it, with its SHA-256, the import's choices and the
digest of the plan the editor saw. Nothing the client sends is trusted but what
the signature covers, and a file that changed on disk is refused. The file is
removed once imported or cancelled; files left behind go after KEEP_SECONDS.
"""

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.core import signing
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.utils import timezone

KEEP_SECONDS = 3600  # How long a preview can wait for its confirmation.
_FOLDER = "imports"
_SALT = "quizzes.interchange.uploads"


def _storage():
    return storages["private"]


class UploadGone(Exception):
    """The token is forged or too old, or its file is gone or changed."""


@dataclass(frozen=True)
class KeptUpload:
    token: str
    content: bytes
    choices: dict
    digest: str


def upload_keep(*, content: bytes, choices: dict, digest: str) -> str:
    """Store `content` until it is confirmed; the token the preview page carries."""
    _stale_delete()
    name = _storage().save(f"{_FOLDER}/{secrets.token_hex(16)}.upload", ContentFile(content))
    sha256 = hashlib.sha256(content).hexdigest()
    return signing.dumps(
        {"name": name, "sha256": sha256, "choices": choices, "digest": digest}, salt=_SALT
    )


def upload_take(*, token: str) -> KeptUpload:
    """The file and choices a token names; raise UploadGone if it can't be trusted."""
    try:
        kept = signing.loads(token, salt=_SALT, max_age=KEEP_SECONDS)
    except signing.BadSignature:
        raise UploadGone from None
    try:
        with _storage().open(kept["name"], "rb") as file:
            content = file.read()
    except OSError:
        raise UploadGone from None
    if hashlib.sha256(content).hexdigest() != kept["sha256"]:
        raise UploadGone
    return KeptUpload(token=token, content=content, choices=kept["choices"], digest=kept["digest"])


def upload_discard(*, token: str) -> None:
    try:
        kept = signing.loads(token, salt=_SALT)
    except signing.BadSignature:
        return
    _storage().delete(kept["name"])


def _stale_delete() -> None:
    """Remove the files of previews that were never confirmed nor cancelled."""
    try:
        _folders, names = _storage().listdir(_FOLDER)
    except FileNotFoundError:
        return
    limit = timezone.now() - timedelta(seconds=KEEP_SECONDS)
    for name in names:
        path = f"{_FOLDER}/{name}"
        if _storage().get_modified_time(path) < limit:
            _storage().delete(path)


def upload_redigested(*, token: str, digest: str) -> str:
    """A token for the same kept file and choices with the digest of the plan now shown (a
    file planned in the background is kept before its plan is known)."""
    kept = signing.loads(token, salt=_SALT)
    return signing.dumps({**kept, "digest": digest}, salt=_SALT)
