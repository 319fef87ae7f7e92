"""A large file's preview and write run in the task worker (quizzes/interchange/background.py),
the admin following them on a page that reloads itself; the worker here is the real one
(django-tasks' database backend, `db_worker`), run in the test's process."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from quizzes.interchange import background
from quizzes.interchange.archive import archive_write
from quizzes.interchange.importing import quiz_import
from quizzes.interchange.quizfile import quiz_file_dump
from quizzes.models import Choice, Question, Quiz
from tests.factories import answer, start
from tests.interchange.test_import_export import CONFIRM_URL, IMPORT_URL, quiz_file

PROGRESS = re.compile(r"/admin/quizzes/quiz/import/progress/([^/]+)/$")
# The worker closes its connection between tasks, as it should: outside a test's transaction.
# (A superuser imports: the roles the migrations made are gone once a test has committed.)
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def every_file_in_the_background(settings, tmp_path):
    settings.IMPORT_BACKGROUND_BYTES = 0
    settings.PRIVATE_ROOT = tmp_path / "private"


def worker_run() -> None:
    """The task worker, until nothing is left to run."""
    call_command("db_worker", batch=True, interval=0, verbosity=0, startup_delay=False)


def followed(client, response) -> str:
    """The progress page a request was sent to, once the worker ran its task."""
    assert response.status_code == 302
    assert PROGRESS.search(response.url), response.url
    waiting = client.get(response.url)
    page = waiting.content.decode()
    assert "quizsite/admin-reload.js" in page
    assert "waits for the task worker" in page
    assert f'<a href="{response.url}">Reload now</a>' in page
    worker_run()
    return client.get(response.url)


def test_a_large_file_is_previewed_then_written_by_the_task_worker(admin_client, guide):
    content = quiz_file_dump(quiz_file()).encode()
    response = admin_client.post(IMPORT_URL, {"file": SimpleUploadedFile("quiz.yaml", content)})
    preview = followed(admin_client, response)
    assert preview.status_code == 200
    page = preview.content.decode()
    assert "Create: 1 quiz, 3 questions, 6 choices." in page
    assert "admin-reload.js" not in page
    assert not Quiz.objects.filter(slug="tiny-quiz").exists()

    confirm = {"token": preview.context["token"], "confirm": "Confirm"}
    done = followed(admin_client, admin_client.post(CONFIRM_URL, confirm))
    page = done.content.decode()
    assert "Imported." in page and "Create: 1 quiz, 3 questions, 6 choices." in page
    quiz = Quiz.objects.get(slug="tiny-quiz")
    assert quiz.questions.count() == 3
    assert Choice.objects.filter(question__quiz=quiz, is_correct=True).count() == 3


def test_a_write_refused_in_the_worker_writes_nothing_and_says_why(admin_client, client, guide):
    """An answer recorded between the preview and the worker's write refuses all of it."""
    quiz = quiz_import(data=quiz_file())
    smaller = quiz_file(questions=quiz_file()["questions"][:1])
    response = admin_client.post(
        IMPORT_URL, {"file": SimpleUploadedFile("quiz.yaml", quiz_file_dump(smaller).encode())}
    )
    preview = followed(admin_client, response)
    assert "Delete: 2 questions, 4 choices." in preview.content.decode()
    attempt = start(client, quiz)
    answer(client, attempt, 1, quiz.questions.get(position=1).choices.first())
    answer(client, attempt, 2, quiz.questions.get(position=2).choices.first())
    before = list(Question.objects.values()), list(Choice.objects.values())

    confirm = {"token": preview.context["token"], "confirm": "Confirm"}
    refused = followed(admin_client, admin_client.post(CONFIRM_URL, confirm))
    assert refused.status_code == 400
    assert "it would delete content that learners have answered" in refused.content.decode()
    assert (list(Question.objects.values()), list(Choice.objects.values())) == before


def test_the_progress_page_is_its_editors_only(admin_client, client, guide, django_user_model):
    response = admin_client.post(IMPORT_URL, {"file": SimpleUploadedFile("quiz.yaml", _file())})
    other = django_user_model.objects.create_superuser("other-admin", password=None)
    client.force_login(other)
    assert client.get(response.url).status_code == 404
    assert client.get("/admin/quizzes/quiz/import/progress/not-an-id/").status_code == 404


def _file() -> bytes:
    return quiz_file_dump(quiz_file()).encode()


def test_a_failed_task_says_so_and_wrote_nothing(admin_client, admin_user, guide):
    """A task that raises (here, given a token that is no text) is shown failed, with its
    error's kind, and no longer reloads; its write, one transaction, left nothing."""
    before = list(Quiz.objects.values())
    result = background.import_confirm_task.enqueue(
        token=0, user_id=admin_user.pk, language="en", import_rest=False
    )
    worker_run()
    failed = admin_client.get(f"/admin/quizzes/quiz/import/progress/{result.id}/")
    page = failed.content.decode()
    assert "<title>Import failed |" in page
    assert "The import failed (TypeError): nothing was written." in page
    assert "admin-reload.js" not in page
    assert list(Quiz.objects.values()) == before


def test_a_zip_is_weighed_by_its_entries_not_its_bytes(settings):
    settings.IMPORT_BACKGROUND_BYTES = 10_000
    bundle = archive_write({"quizzes/bank.yaml": b"slug: bank\n" * 2_000})
    assert len(bundle) < 10_000
    assert background.in_background(bundle)
    assert not background.in_background(b"slug: bank\n" * 900)
    assert background.in_background(b"slug: bank\n" * 1_000)


def test_the_rest_of_a_file_that_leaves_a_question_out_is_imported_when_chosen(admin_client):
    content = b"::One::Which is a prime?{=2 ~4}\n\n::Two::How are you?{}\n"
    upload = SimpleUploadedFile("bank.gift", content)
    preview = followed(admin_client, admin_client.post(IMPORT_URL, {"file": upload}))
    page = preview.content.decode()
    assert "Import the rest" in page and "Refuse the file" in page
    confirm = {"token": preview.context["token"], "confirm": "Confirm"}
    again = followed(admin_client, admin_client.post(CONFIRM_URL, confirm))
    assert "Import the rest" in again.content.decode()  # Not chosen: refused, shown again.
    assert not Question.objects.exists()
    rest = {"token": again.context["token"], "import_rest": "Import the rest"}
    done = followed(admin_client, admin_client.post(CONFIRM_URL, rest))
    assert "Imported." in done.content.decode()
    assert list(Question.objects.values_list("prompt_en", flat=True)) == ["Which is a prime?"]
