"""The quiz file format (docs/quiz-format.md) in the admin, one link away from the upload."""

import re

from django.conf import settings

from quizzes.markup.rendering import document
from tests.factories import make_staff

FORMAT = "/admin/quizzes/quiz/format/"
SOURCE = (settings.BASE_DIR / "docs" / "quiz-format.md").read_text(encoding="utf-8")


def test_the_upload_page_links_to_the_format(editor_client):
    page = editor_client.get("/admin/quizzes/quiz/import/").content.decode()
    assert f'<a href="{FORMAT}">the quiz file format</a>' in page


def test_the_format_page_shows_the_document_with_its_sections(editor_client):
    response = editor_client.get(FORMAT)
    assert response.status_code == 200
    page = response.content.decode()
    assert '<h1 lang="en">The quiz file format</h1>' in page
    sections = [line.removeprefix("## ") for line in SOURCE.splitlines() if line.startswith("## ")]
    assert len(sections) > 5
    for section in sections:
        assert f">{section}</h2>" in page.replace("&quot;", '"')
    assert '<h2 id="writing-content">Writing content</h2>' in page
    assert '<table tabindex="0">' in page and '<pre tabindex="0"><code' in page


def test_every_heading_has_a_distinct_id_and_only_the_title_is_taken_out():
    title, html = document(SOURCE)
    assert title == "The quiz file format"
    ids = re.findall(r'<h[2-6] id="([^"]+)"', html)
    headings = [line for line in SOURCE.splitlines() if re.match(r"#{2,6} ", line)]
    assert len(ids) == len(headings) and "<h1" not in html
    assert all(re.fullmatch(r"[a-z0-9_-]+", id_) for id_ in ids)


def test_raw_html_in_a_document_stays_text():
    _title, html = document("# T\n\n<script>alert(1)</script> [x](javascript:alert(1))")
    assert "<script" not in html and "href" not in html


def test_only_staff_reads_it(client, db):
    assert client.get(FORMAT).status_code == 302  # To the admin's sign-in.
    client.force_login(make_staff("instructor", "Instructors"))
    assert client.get(FORMAT).status_code == 200
