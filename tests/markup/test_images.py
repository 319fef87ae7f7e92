"""Images in quiz texts: uploaded and checked in the admin, shown on the learner pages, carried
in a quiz file's .zip."""

import io
import zipfile

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from quizzes.interchange.importing import quiz_import
from quizzes.interchange.quizfile import QuizFileError, quiz_archive, quiz_archive_read
from quizzes.markup.images import image_check, image_name
from quizzes.models import ContentImage
from tests.factories import make_quiz, post_question, question_url, start

ADD = "/admin/quizzes/contentimage/add/"


def png(colour: str = "navy", size: tuple[int, int] = (40, 20)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, "PNG")
    return buffer.getvalue()


def upload(editor_client, content: bytes, filename: str = "diagram.png", **fields):
    data = {"alt_en": "A diagram", "alt_fr": "Un schéma", **fields}
    data["file"] = SimpleUploadedFile(filename, content)
    return editor_client.post(ADD, data)


def stored_png(colour: str = "navy") -> tuple[str, str]:
    """(storage name, URL) of an image uploaded to the site."""
    data = png(colour)
    name = image_name(data=data, extension=image_check(data=data))
    default_storage.save(name, io.BytesIO(data))
    ContentImage.objects.create(file=name, alt_en="A diagram")
    return name, f"/media/{name}"


def test_an_upload_is_named_by_its_content_and_offers_its_markdown(editor_client):
    response = upload(editor_client, png())
    assert response.status_code == 302, response.context["adminform"].form.errors
    image = ContentImage.objects.get()
    assert image.file.name == image_name(data=png(), extension="png")
    assert default_storage.exists(image.file.name)
    page = editor_client.get(f"/admin/quizzes/contentimage/{image.pk}/change/").content.decode()
    assert f"<code>![A diagram](/media/{image.file.name})</code>" in page
    assert f"<code>![Un schéma](/media/{image.file.name})</code>" in page
    again = upload(editor_client, png(), filename="copy.png")
    assert "This image is already uploaded" in again.content.decode()


SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'


@pytest.mark.parametrize(
    ("content", "filename", "message"),
    [
        # Over the image's limit, within the admin's body limit (a larger body is a 413 before
        # the form sees it: tests/quizsite/test_body_limits.py).
        (b"\x89PNG" + b"\0" * (3 * 1024 * 1024), "big.png", "This file is 3.0 MB"),
        (b"just some text", "notes.png", "not an image the site takes"),
        (SVG, "drawing.svg", "SVG is refused"),
        (png()[:60], "truncated.png", "not an image the site takes"),
    ],
    ids=["3-MB", "not-an-image", "svg", "truncated"],
)
def test_bad_uploads_are_refused_clearly(editor_client, content, filename, message):
    response = upload(editor_client, content, filename)
    assert response.status_code == 200
    assert message in " ".join(response.context["adminform"].form.errors["file"])
    assert not ContentImage.objects.exists()


def test_an_image_shows_in_a_prompt_and_an_explanation(editor_client, client, guide):
    name, url = stored_png()
    quiz = make_quiz(questions=1, choices=2, guide=guide)
    question = quiz.questions.get()
    response = post_question(
        editor_client,
        question,
        prompt_en=f"Which step is this? ![Four GPUs sum their gradients]({url})",
        explanation_fr=f"![Quatre GPU additionnent leurs gradients]({url})\n\nVoilà.",
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    client.logout()
    attempt = start(client, quiz)
    page = client.get(question_url(attempt, 1)).content.decode()
    assert f'<img src="{url}" alt="Four GPUs sum their gradients">' in page
    served = client.get(url)
    assert served.status_code == 200 and served["Content-Type"] == "image/png"
    assert "immutable" in served["Cache-Control"]  # Its name changes with its bytes.
    assert client.get("/media/content/missing.png").status_code == 404
    assert client.get("/media/../manage.py").status_code == 404


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("![](/media/{name})", "has no alt text"),
        ("![A diagram](/media/content/missing.png)", "is not one uploaded to this site"),
        ("![A diagram](https://example.org/a.png)", "is not one uploaded to this site"),
    ],
    ids=["no-alt", "not-uploaded", "elsewhere"],
)
def test_an_image_needs_alt_text_and_to_be_uploaded(editor_client, guide, source, message):
    name, _url = stored_png()
    question = make_quiz(questions=1, choices=2, guide=guide).questions.get()
    response = post_question(
        editor_client, question, feedback="", explanation_fr=source.format(name=name)
    )
    assert response.status_code == 200
    [error] = response.context["adminform"].form.errors["explanation_fr"]
    assert error.startswith("explanation (fr): ") and message in error


def test_a_quiz_with_images_exports_as_a_zip_that_imports_identically(guide):
    name, url = stored_png()
    quiz = make_quiz(questions=1, choices=2, guide=guide)
    quiz.questions.update(explanation_en=f"![A diagram]({url})")
    filename, content, content_type = quiz_archive(quiz=quiz)
    assert filename == "dp-quiz.zip" and content_type == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(content)).namelist()
    assert names == ["dp-quiz.yaml", f"images/{name.removeprefix('content/')}"]

    quiz.delete()
    ContentImage.objects.all().delete()
    default_storage.delete(name)
    archive = quiz_archive_read(content=content)
    imported = quiz_import(data=archive.data, images=archive.images)
    assert default_storage.exists(name) and ContentImage.objects.get().file.name == name
    assert quiz_archive(quiz=imported)[1] == content


def test_a_bad_zip_is_refused_and_changes_nothing(guide):
    name, url = stored_png()
    quiz = make_quiz(questions=1, choices=2, guide=guide)
    quiz.questions.update(explanation_en=f"![A diagram]({url})")
    _filename, content, _type = quiz_archive(quiz=quiz)
    source = zipfile.ZipFile(io.BytesIO(content))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bad:
        bad.writestr("dp-quiz.yaml", source.read("dp-quiz.yaml"))
        bad.writestr(f"images/{name.removeprefix('content/')}", SVG)
        bad.writestr("../escape.txt", b"no")
    with pytest.raises(QuizFileError) as error:
        quiz_archive_read(content=buffer.getvalue())
    assert "only images/<name> may be there" in str(error.value)

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bad:
        bad.writestr("dp-quiz.yaml", source.read("dp-quiz.yaml"))
        bad.writestr("images/other.png", SVG)
    archive = quiz_archive_read(content=buffer.getvalue())
    with pytest.raises(QuizFileError) as error:
        quiz_import(data=archive.data, images=archive.images)
    assert "images/other.png: This file is not an image the site takes" in str(error.value)
