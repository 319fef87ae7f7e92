"""Quizzes as the files they export to, for the admin's export actions and `exportquiz`.

Quiz files: one quiz is its YAML file, or a .zip with its images
(quizfile.quiz_archive); several are one bundle (bundles.quizzes_bundle), which
imports back as it is. GIFT and Moodle XML hold one language and one category
per quiz; Moodle XML carries the images the texts show as `<file>`s.
"""

import posixpath
from dataclasses import dataclass

from django.core.files.storage import default_storage

from quizzes.interchange.bundles import quizzes_bundle
from quizzes.interchange.gift import gift_export
from quizzes.interchange.importing import FORMAT_GIFT, FORMAT_MOODLE_XML, FORMAT_YAML
from quizzes.interchange.moodle_xml import moodle_xml_export_quizzes
from quizzes.interchange.quizfile import (
    ARCHIVE_IMAGES,
    image_references,
    quiz_archive,
    quiz_export,
)
from quizzes.markup.images import image_url
from quizzes.models import Quiz

EXPORT_FORMATS = (FORMAT_YAML, FORMAT_GIFT, FORMAT_MOODLE_XML)


@dataclass(frozen=True)
class Export:
    """A downloadable file."""

    filename: str
    content: bytes
    content_type: str


def quizzes_export(*, quizzes: list[Quiz], file_format: str, language: str) -> Export:
    """`quizzes` (at least one) in `file_format`; GIFT and Moodle XML in `language`."""
    name = quizzes[0].slug if len(quizzes) == 1 else "quizzes"
    if file_format == FORMAT_GIFT:
        text = "\n".join(gift_export(quiz_export(quiz=quiz), language=language) for quiz in quizzes)
        return Export(f"{name}.gift", text.encode(), "text/plain; charset=utf-8")
    if file_format == FORMAT_MOODLE_XML:
        datas, images = _with_archive_images([quiz_export(quiz=quiz) for quiz in quizzes])
        content = moodle_xml_export_quizzes(datas, language=language, images=images)
        return Export(f"{name}.xml", content, "application/xml")
    if len(quizzes) == 1:
        return Export(*quiz_archive(quiz=quizzes[0]))
    return Export(f"{name}.zip", quizzes_bundle(quizzes), "application/zip")


def _with_archive_images(datas: list[dict]) -> tuple[list[dict], dict[str, bytes]]:
    """The quiz files with the site's images they show as `images/<name>`, and those images:
    the references Moodle XML's writer turns into `<file>`s."""
    urls = {}
    images = {}
    for data in datas:
        for name in image_references(data):
            basename = posixpath.basename(name)
            if basename not in images:
                urls[f"]({image_url(name)})"] = f"]({ARCHIVE_IMAGES}{basename})"
                with default_storage.open(name, "rb") as image:
                    images[basename] = image.read()
    return [_replaced(data, urls) for data in datas], images


def _replaced(value, urls: dict[str, str]):
    if isinstance(value, str):
        for old, new in urls.items():
            value = value.replace(old, new)
        return value
    if isinstance(value, dict):
        return {key: _replaced(item, urls) for key, item in value.items()}
    if isinstance(value, list):
        return [_replaced(item, urls) for item in value]
    return value
