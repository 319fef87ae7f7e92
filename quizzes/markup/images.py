"""Images in quiz texts: checked with Pillow, stored through Django's storage under a name made
of their content.

An editor uploads an image (`ContentImage` in the admin) and pastes its Markdown reference,
`![alt text](/media/content/<hash>.png)`, into a prompt, a choice, an explanation or a
feedback, with the alt text in that text's language. Naming a file by its bytes makes the same
image the same file on every site: a quiz file's images (the `.zip` export) import under the
names their texts already use, and importing twice stores nothing twice.
"""

import hashlib
import io
import posixpath
import warnings

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils.translation import gettext
from PIL import Image, UnidentifiedImageError

# The folder of the site's storage (MEDIA_ROOT here, a bucket elsewhere) that holds the uploaded
# images: `content/<hash>.png`, at /media/content/… in the texts. Its name is older than the
# quiz archives' `images/` folder (interchange's ARCHIVE_IMAGES), and stays: stored files and
# every text's URLs carry it.
STORAGE_IMAGE_DIR = "content"
# What browsers show and Pillow can check; SVG is refused: it can carry script.
FORMATS = {"PNG": "png", "JPEG": "jpg", "GIF": "gif", "WEBP": "webp"}
# A small file can still decode to a huge bitmap (a "decompression bomb").
MAX_PIXELS = 25_000_000


class ImageError(ValueError):
    """An upload that is not an image the site takes; the message is for the editor."""


def image_check(*, data: bytes) -> str:
    """The file extension for these bytes, or `ImageError` saying what is wrong with them."""
    limit = settings.CONTENT_IMAGE_MAX_BYTES
    if len(data) > limit:
        raise ImageError(
            gettext("This file is %(size)s MB; an image may be %(limit)s MB at most.")
            % {"size": f"{len(data) / 1024 / 1024:.1f}", "limit": f"{limit / 1024 / 1024:.1f}"}
        )
    refused = gettext(
        "This file is not an image the site takes: upload a PNG, JPEG, GIF or WebP file "
        "(SVG is refused, since it can carry script)."
    )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                image_format = image.format
                width, height = image.size
                image.verify()
    except (UnidentifiedImageError, Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ImageError(refused) from None
    except Exception:  # Pillow raises many kinds of errors on a truncated or broken file
        raise ImageError(refused) from None
    if image_format not in FORMATS:
        raise ImageError(refused)
    if width * height > MAX_PIXELS:
        raise ImageError(
            gettext("This image is %(width)s × %(height)s pixels; make it smaller.")
            % {"width": width, "height": height}
        )
    return FORMATS[image_format]


def image_name(*, data: bytes, extension: str) -> str:
    """The storage name of an image: its content's hash, so equal bytes get equal names."""
    digest = hashlib.sha256(data).hexdigest()[:24]
    return posixpath.join(STORAGE_IMAGE_DIR, f"{digest}.{extension}")


def image_url(name: str) -> str:
    """The URL texts use for a stored image: MEDIA_URL and the name (see markup._media_url)."""
    return settings.MEDIA_URL + name


def image_store(*, name: str, data: bytes) -> None:
    """Store checked image bytes under `name` unless they are there already (an import again)."""
    if not default_storage.exists(name):
        saved = default_storage.save(name, ContentFile(data))
        assert saved == name, f"{name} was stored as {saved}"


def name_of_url(url: str) -> str | None:
    """The storage name an image URL in a text points to, or None when it isn't ours."""
    prefix = settings.MEDIA_URL + STORAGE_IMAGE_DIR + "/"
    if not url.startswith(prefix):
        return None
    name = url.removeprefix(settings.MEDIA_URL)
    basename = posixpath.basename(name)
    if posixpath.dirname(name) != STORAGE_IMAGE_DIR or not basename or basename.startswith("."):
        return None
    return name
