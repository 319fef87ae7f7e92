"""The quiz admin's export actions: quiz files (one flat bundle for several quizzes), GIFT and
Moodle XML in the language chosen."""

import io
import zipfile

import pytest
from django.contrib.auth.models import User
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from quizzes.interchange.bundles import bundle_read
from quizzes.interchange.gift import gift_parse
from quizzes.interchange.importing import import_plan
from quizzes.interchange.moodle_xml import moodle_xml_parse
from quizzes.markup.images import image_check, image_name
from quizzes.models import ContentImage, Quiz
from tests.factories import make_quiz, make_staff
from tests.markup.test_images import png

CHANGELIST = "/admin/quizzes/quiz/"


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    """The images the quizzes show and the files kept between an import's preview and its
    confirmation."""
    settings.MEDIA_ROOT = tmp_path / "media"


def export(client, action: str, quizzes: list[Quiz], **fields):
    data = {"action": action, "_selected_action": [quiz.pk for quiz in quizzes], **fields}
    return client.post(CHANGELIST, data)


def with_image(quiz: Quiz) -> str:
    """Show an image of the site in the quiz's first explanation; its storage name."""
    data = png()
    name = image_name(data=data, extension=image_check(data=data))
    default_storage.save(name, io.BytesIO(data))
    ContentImage.objects.create(file=name, alt_en="A diagram", alt_fr="Un schéma")
    quiz.questions.filter(position=1).update(
        explanation_en=f"See ![A diagram](/media/{name}).",
        explanation_fr=f"Voir ![Un schéma](/media/{name}).",
    )
    return name


def attachment(response) -> str:
    assert response.status_code == 200, response
    disposition = response["Content-Disposition"]
    assert disposition.startswith('attachment; filename="'), disposition
    return disposition.removeprefix('attachment; filename="').removesuffix('"')


def test_gift_export_is_one_file_in_the_language_chosen(editor_client, guide):
    quiz = make_quiz(questions=2, guide=guide)
    other = make_quiz(slug="other", questions=1, title_en="Other", title_fr="Autre")

    response = export(editor_client, "export_gift", [quiz, other], language="fr")
    assert attachment(response) == "quizzes.gift"
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    parsed = gift_parse(response.content, language="fr")
    assert parsed.problems == []
    assert [data["title"] for data in parsed.quizzes] == [
        {"fr": "Quiz sur le parallélisme des données"},
        {"fr": "Autre"},
    ]
    first = parsed.quizzes[0]["questions"][0]
    assert first["prompt"] == {"fr": "Énoncé de la question 1"}
    assert [choice["correct"] for choice in first["choices"]] == [True, False, False, False]

    response = export(editor_client, "export_gift", [quiz])
    assert attachment(response) == "dp-quiz.gift"
    parsed = gift_parse(response.content, language="en")
    assert [data["title"] for data in parsed.quizzes] == [{"en": "Data parallelism quiz"}]
    assert len(parsed.quizzes[0]["questions"]) == 2


def test_moodle_xml_export_carries_the_images_and_imports_back_unchanged(editor_client, guide):
    quiz = make_quiz(questions=2, guide=guide)
    name = with_image(quiz)
    basename = name.rpartition("/")[2]

    response = export(editor_client, "export_moodle_xml", [quiz], language="fr")
    assert attachment(response) == "dp-quiz.xml"
    assert response["Content-Type"] == "application/xml"
    assert f'<file name="{basename}" path="/" encoding="base64">' in response.content.decode()
    parsed = moodle_xml_parse(response.content, language="fr")
    assert parsed.problems == []
    assert parsed.images == {basename: default_storage.open(name).read()}
    (data,) = parsed.quizzes
    explanation = data["questions"][0]["explanation"]
    assert explanation == {"fr": f"Voir ![Un schéma](images/{basename})."}

    plan = import_plan(content=response.content, name="dp-quiz.xml", language="fr")
    assert plan.errors == () and plan.changes == ()


def test_moodle_xml_export_of_several_quizzes_has_a_category_each(editor_client, guide):
    quiz = make_quiz(questions=2, guide=guide)
    other = make_quiz(slug="other", questions=3, title_en="Other")
    response = export(editor_client, "export_moodle_xml", [quiz, other], language="en")
    assert attachment(response) == "quizzes.xml"
    parsed = moodle_xml_parse(response.content, language="en")
    titles = [(data["title"], len(data["questions"])) for data in parsed.quizzes]
    assert titles == [({"en": "Data parallelism quiz"}, 2), ({"en": "Other"}, 3)]


def test_several_quizzes_export_as_one_flat_bundle_that_imports_back(editor_client, guide):
    quiz = make_quiz(questions=2, guide=guide)
    other = make_quiz(slug="other", questions=1)
    make_quiz(slug="kept", questions=1)
    name = with_image(quiz)

    response = export(editor_client, "export", [quiz, other])
    assert attachment(response) == "quizzes.zip"
    assert response["Content-Type"] == "application/zip"
    content = response.content
    names = zipfile.ZipFile(io.BytesIO(content)).namelist()
    assert names == [
        f"images/{name.rpartition('/')[2]}",
        "quizzes/dp-quiz.yaml",
        "quizzes/other.yaml",
    ]
    bundle = bundle_read(content=content)
    assert bundle.guides is None
    assert [entry for entry, _data in bundle.quizzes] == names[1:]

    # Into a site without them: the admin's import takes the zip as a bundle, and leaves the
    # quiz it doesn't hold.
    Quiz.objects.exclude(slug="kept").delete()
    ContentImage.objects.all().delete()
    default_storage.delete(name)
    preview = editor_client.post(
        CHANGELIST + "import/", {"file": SimpleUploadedFile("quizzes.zip", content)}
    )
    assert preview.status_code == 200 and preview.context["token"]
    confirmed = editor_client.post(
        CHANGELIST + "import/confirm/", {"token": preview.context["token"], "confirm": "Confirm"}
    )
    assert confirmed.status_code == 302
    assert ContentImage.objects.get().file.name == name
    assert sorted(Quiz.objects.values_list("slug", flat=True)) == ["dp-quiz", "kept", "other"]
    again = export(editor_client, "export", list(Quiz.objects.exclude(slug="kept")))
    assert again.content == content


def test_one_quiz_with_images_is_its_own_zip(editor_client, guide):
    quiz = make_quiz(questions=1, guide=guide)
    name = with_image(quiz)
    response = export(editor_client, "export", [quiz])
    assert attachment(response) == "dp-quiz.zip"
    names = zipfile.ZipFile(io.BytesIO(response.content)).namelist()
    assert names == ["dp-quiz.yaml", f"images/{name.rpartition('/')[2]}"]


@pytest.mark.parametrize("action", ["export", "export_gift", "export_moodle_xml"])
def test_exports_need_the_permission_to_view_quizzes(client, guide, action):
    quiz = make_quiz(questions=1, guide=guide)
    client.force_login(User.objects.create_user("visitor", is_staff=True))
    assert export(client, action, [quiz]).status_code == 403
    # Instructors view quizzes in the admin: they may export them as editors do.
    client.force_login(make_staff("instructor", "Instructors"))
    assert attachment(export(client, action, [quiz], language="fr"))


def test_an_unknown_language_exports_nothing(editor_client, guide):
    quiz = make_quiz(questions=1, guide=guide)
    response = export(editor_client, "export_gift", [quiz], language="de")
    assert response.status_code == 302
    assert "Content-Disposition" not in response


def test_the_action_bar_offers_the_formats_and_languages(editor_client, guide):
    make_quiz(questions=1, guide=guide)
    page = editor_client.get(CHANGELIST).content.decode()
    for option in ("Export as quiz files", "Export as GIFT", "Export as Moodle XML"):
        assert option in page
    assert '<option value="fr">French</option>' in page
    page = editor_client.get(CHANGELIST, headers={"accept-language": "fr"}).content.decode()
    for option in ("Exporter en GIFT", "Exporter en Moodle XML", "Langue des fichiers GIFT"):
        assert option in page


def test_export_reads_three_queries_a_quiz(editor_client, guide, django_assert_num_queries):
    quizzes = [make_quiz(slug=f"quiz-{n}", questions=3, guide=guide) for n in range(3)]
    for action in ("export", "export_gift", "export_moodle_xml"):
        with django_assert_num_queries(QUERIES + 3):
            attachment(export(editor_client, action, quizzes[:1]))
        with django_assert_num_queries(QUERIES + 9):
            attachment(export(editor_client, action, quizzes))


# The session, the user and their permissions (4), the change list's guide paths filter and
# counts that the admin reads before an action (4), the quizzes selected (1).
QUERIES = 9


def test_exportquiz_writes_moodle_xml_with_its_images(tmp_path, guide):
    quiz = make_quiz(questions=1, guide=guide)
    name = with_image(quiz)
    output = tmp_path / "quiz.xml"
    call_command("exportquiz", "dp-quiz", "--format", "moodle-xml", "--output", str(output))
    parsed = moodle_xml_parse(output.read_bytes(), language="en")
    assert parsed.images == {name.rpartition("/")[2]: default_storage.open(name).read()}
