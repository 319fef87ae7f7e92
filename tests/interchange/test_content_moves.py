"""Content that moves (issue 15): bundles, GIFT and Moodle XML into the database, the plan
shown before anything is written, the French fill, and bad input refused."""

import base64
import io
import time
import zipfile

import PIL.Image
import pytest
from django.contrib.auth.models import Permission
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from guides.models import GuidePath
from quizzes.interchange import archive, bundles
from quizzes.interchange.gift import gift_export, gift_parse
from quizzes.interchange.importing import (
    CREATE,
    DELETE,
    UPDATE,
    Change,
    format_detect,
    import_apply,
    import_plan,
)
from quizzes.interchange.moodle_xml import moodle_xml_parse
from quizzes.interchange.quizfile import quiz_export, quiz_file_dump
from quizzes.models import Choice, ContentImage, Question, Quiz
from tests.factories import answer, choice_of, make_quiz, make_staff, start
from tests.samples import GIFT_EVERY_CONSTRUCT, MOODLE_XML_EVERY_CONSTRUCT

IMPORT_URL = "/admin/quizzes/quiz/import/"
CONFIRM_URL = "/admin/quizzes/quiz/import/confirm/"


@pytest.fixture
def kept_uploads(settings):
    """Where the import files kept for a confirmation are (tests/conftest.py moves it)."""
    return settings.STORAGES["private"]["OPTIONS"]["location"]


def snapshot() -> list:
    """Every row of the content, stamps included: nothing may move unnoticed."""
    return [
        list(GuidePath.objects.order_by("pk").values()),
        list(Quiz.objects.order_by("pk").values()),
        list(Quiz.guide_paths.through.objects.order_by("pk").values()),
        list(Question.objects.order_by("pk").values()),
        list(Choice.objects.order_by("pk").values()),
    ]


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def write(tmp_path, name: str, content: bytes | str):
    path = tmp_path / name
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)
    return str(path)


def db_question(question: Question) -> dict:
    """A question as it is in the database, its English and French fields one by one."""
    return {
        "prompt": (question.prompt_en, question.prompt_fr),
        "explanation": (question.explanation_en, question.explanation_fr),
        "kind": question.kind,
        "choices": [
            ((c.text_en, c.text_fr), c.is_correct, (c.feedback_en, c.feedback_fr))
            for c in question.choices.order_by("position")
        ],
    }


def file_question(item: dict, language: str = "en") -> dict:
    """The same shape from a quiz-file dict whose texts are in one language."""

    def texts(value) -> tuple[str, str]:
        text = (value or {}).get(language, "")
        return (text, "") if language == "en" else ("", text)

    return {
        "prompt": texts(item["prompt"]),
        "explanation": texts(item.get("explanation")),
        "kind": item.get("kind", "single"),
        "choices": [
            (texts(c["text"]), c["correct"], texts(c.get("feedback"))) for c in item["choices"]
        ],
    }


# GIFT and Moodle XML into the database


def test_gift_file_of_every_construct_is_imported_field_by_field(db, tmp_path):
    path = write(tmp_path, "networks.gift", GIFT_EVERY_CONSTRUCT)
    # Questions are left out: the file is refused, as Moodle does, unless told otherwise.
    with pytest.raises(CommandError, match="give --import-rest to import the rest"):
        run("importquiz", path)
    assert not Quiz.objects.exists()
    out = run("importquiz", path, "--import-rest")
    quiz = Quiz.objects.get(slug="networks")
    assert (quiz.title_en, quiz.title_fr, quiz.is_published) == ("Networks", "", False)
    questions = list(quiz.questions.order_by("position"))
    assert [q.position for q in questions] == list(range(1, 13))
    assert db_question(questions[0]) == {
        "prompt": ("Which port does HTTP use?", ""),
        "explanation": ("Port 443 is HTTPS.", ""),
        "kind": "single",
        "choices": [
            (("80", ""), True, ("Right: port 80.", "")),
            (("21", ""), False, ("That is FTP.", "")),
            (("443", ""), False, ("", "")),
        ],
    }
    assert db_question(questions[1])["kind"] == "multiple"
    assert db_question(questions[1])["choices"] == [
        (("TCP", ""), True, ("Yes.", "")),
        (("UDP", ""), True, ("", "")),
        (("IP", ""), False, ("No: that is the network layer.", "")),
    ]
    assert db_question(questions[4]) == {
        "prompt": ("IP is a transport protocol.", ""),
        "explanation": ("IP is the network layer.", ""),
        "kind": "true_false",
        "choices": [
            (("True", ""), False, ("No, it is not.", "")),
            (("False", ""), True, ("Right.", "")),
        ],
    }
    expected = gift_parse(GIFT_EVERY_CONSTRUCT, language="en").quizzes[0]
    assert [db_question(q) for q in questions] == [
        file_question(item) for item in expected["questions"]
    ]
    # Kinds this site lacks: one line each, with its place; the rest was imported.
    for line in (48, 52, 55):
        assert f"\n  line {line}: " in out
    assert "Imported with a loss:\n  line 30: HTML tags dropped" in out
    assert out.endswith("Imported.\n")
    # The numerical, short answer and matching, then the missing-word question, single
    # choice, in the Maths quiz.
    numerical, short, matching, maths = Quiz.objects.get(slug="maths").questions.order_by(
        "position"
    )
    assert matching.kind == "matching"
    assert [(c.text_en, c.match_en) for c in matching.choices.all()] == [
        ("cat", "cat food"),
        ("dog", "dog food"),
    ]
    assert (numerical.kind, numerical.choices.get().text_en) == ("numerical", "4")
    assert (short.kind, short.case_sensitive, short.ignore_accents) == (
        "short_answer",
        False,
        False,
    )
    assert [c.text_en for c in short.choices.all()] == ["Grant", "Ulysses S. Grant"]
    assert maths.prompt_en == "Grant is \\_\\_\\_\\_\\_ in Grant's tomb."


def test_moodle_xml_file_of_every_construct_is_imported_field_by_field(db, tmp_path):
    path = write(tmp_path, "export.xml", MOODLE_XML_EVERY_CONSTRUCT)
    out = run("importquiz", path, "--import-rest")
    # The questions of Networks show files that are not images: left out, and their files
    # are not stored; the category makes no quiz.
    assert not Quiz.objects.filter(slug="networks").exists()
    assert not ContentImage.objects.exists()
    truths = Quiz.objects.get(slug="truths")
    assert truths.title_en == "Truths"
    parsed = moodle_xml_parse(MOODLE_XML_EVERY_CONSTRUCT, language="en")
    assert [db_question(q) for q in truths.questions.order_by("position")] == [
        file_question(item) for item in parsed.quizzes[1]["questions"]
    ]
    question = truths.questions.get(position=1)
    assert (question.prompt_en, question.explanation_en) == (
        "TCP is reliable & ordered",
        "It retransmits.",
    )
    assert [(c.text_en, c.is_correct, c.feedback_en) for c in question.choices.all()] == [
        ("True", True, "Right"),
        ("False", False, "Wrong"),
    ]
    assert "\n  question 2 (“SA”): a short-answer question needs at least one answer." in out
    numerical = "a numerical question needs at least one answer."  # Read, but answerless.
    assert f"\n  question 4 (“Num”): {numerical}" in out
    # Its images are not images: the questions that show them are left out, named.
    assert (
        "\n  question 1 (“Ports”): prompt (en): the image “port map.png” can't come along: "
        "This file is not an image the site takes"
    ) in out


def test_a_moodle_xml_image_is_stored_and_shown_from_the_site(db, tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"
    picture = io.BytesIO()
    PIL.Image.new("RGB", (4, 4), "navy").save(picture, "PNG")
    encoded = base64.b64encode(picture.getvalue()).decode()
    xml = f"""<?xml version="1.0" encoding="UTF-8"?><quiz><question type="multichoice">
    <name><text>Diagram</text></name>
    <questiontext format="html"><text><![CDATA[<p>What is drawn? <img src="@@PLUGINFILE@@/a.png"
      alt="a square"></p>]]></text>
      <file name="a.png" path="/" encoding="base64">{encoded}</file>
    </questiontext>
    <single>true</single>
    <answer fraction="100"><text>A square</text></answer>
    <answer fraction="0"><text>A circle</text></answer>
    </question></quiz>""".encode()
    out = run("importquiz", write(tmp_path, "diagram.xml", xml))
    prompt = Question.objects.get().prompt_en
    (image,) = ContentImage.objects.all()
    assert f"![a square](/media/{image.file.name})" in prompt and "Imported." in out
    assert default_storage.exists(image.file.name)


def test_gift_and_moodle_xml_exports_read_back_into_the_same_quiz(db, tmp_path, guide):
    quiz = make_quiz(questions=3, guide=guide)
    quiz.questions.filter(position=2).update(kind="multiple")
    Choice.objects.filter(question__quiz=quiz, question__position=2, position=2).update(
        is_correct=True
    )
    before = snapshot()
    for file_format, name in (("gift", "quiz.gift"), ("moodle-xml", "quiz.xml")):
        for language in ("en", "fr"):
            exported = run("exportquiz", "dp-quiz", "--format", file_format, "--language", language)
            path = write(tmp_path, name, exported)
            out = run("importquiz", path, "--language", language, "--quiz", "dp-quiz", "--dry-run")
            assert out.startswith("Nothing to change.\n"), out
    assert snapshot() == before


# Bundles


def test_bundle_round_trip_is_identical_byte_for_byte(db, tmp_path):
    call_command("loaddemo", stdout=io.StringIO())
    quiz = make_quiz(slug="odd-positions", questions=3, guide=GuidePath.objects.first())
    quiz.questions.filter(position=3).update(position=9, kind="multiple")
    first = tmp_path / "first.zip"
    call_command("exportcontent", "--output", str(first), stderr=io.StringIO())
    again = tmp_path / "again.zip"
    call_command("exportcontent", "--output", str(again), stderr=io.StringIO())
    assert again.read_bytes() == first.read_bytes()

    with zipfile.ZipFile(first) as archive:
        infos = archive.infolist()
    images = sorted(
        f"images/{image.file.name.rpartition('/')[2]}" for image in ContentImage.objects.all()
    )
    assert images  # The demo's diagram.
    assert [info.filename for info in infos] == [
        "guides.yaml",
        *sorted(
            f"images/{image.file.name.rpartition('/')[2]}" for image in ContentImage.objects.all()
        ),
        "quizzes/data-parallelism-quiz.yaml",
        "quizzes/gradient-accumulation-quiz.yaml",
        "quizzes/odd-positions.yaml",
    ]
    assert {(info.date_time, info.external_attr >> 16) for info in infos} == {
        ((1980, 1, 1, 0, 0, 0), 0o644)
    }

    Quiz.objects.all().delete()
    GuidePath.objects.all().delete()
    out = run("importcontent", str(first))
    assert out.startswith("Create: 2 guide paths, 3 quizzes, 26 questions, 110 choices.\n")
    assert out.index("create: guide path data-parallelism") < out.index("create: quiz")
    assert out.endswith("Imported.\n")
    second = tmp_path / "second.zip"
    call_command("exportcontent", "--output", str(second), stderr=io.StringIO())
    assert second.read_bytes() == first.read_bytes()

    before = snapshot()
    assert run("importcontent", str(first)) == "Nothing to change.\n"
    assert snapshot() == before


def test_dry_run_writes_nothing_and_shows_the_plan(db, tmp_path, guide):
    quiz = make_quiz(questions=3, guide=guide)
    bundle = write(tmp_path, "site.zip", bundles.bundle_export())
    quiz.title_fr = "Ancien titre"
    quiz.save()
    quiz.questions.get(position=3).delete()
    quiz.questions.create(position=4, prompt_en="Extra")
    choice = Choice.objects.get(question__quiz=quiz, question__position=1, position=2)
    choice.text_fr = "Changé"
    choice.save()
    before = snapshot()
    out = run("importcontent", bundle, "--dry-run")
    assert snapshot() == before
    assert out == (
        "Create: 1 question, 4 choices.\n"
        "Update: 1 quiz, 1 choice.\n"
        "Delete: 1 question.\n"
        "  update: quiz dp-quiz: title (fr)\n"
        "  update: quiz dp-quiz, question 1, choice 2: text (fr)\n"
        "  create: quiz dp-quiz, question 3: “Question 3 prompt”, 4 choices\n"
        "  delete: quiz dp-quiz, question at position 4: “Extra”\n"
        "Dry run: nothing was written.\n"
    )
    plan = import_plan(content=open(bundle, "rb").read(), name="site.zip")
    assert plan.changes[0] == Change(UPDATE, "quiz", "quiz dp-quiz", "title (fr)")
    assert {change.kind for change in plan.changes} == {CREATE, UPDATE, DELETE}
    import_apply(plan=plan)
    quiz = Quiz.objects.get()
    assert quiz.title_fr == "Quiz sur le parallélisme des données"
    assert [q.prompt_en for q in quiz.questions.all()] == [
        f"Question {n} prompt" for n in (1, 2, 3)
    ]
    assert import_plan(content=open(bundle, "rb").read(), name="site.zip").changes == ()


def test_a_quiz_on_a_fresh_site_points_at_guide_paths_and_bundles(db, tmp_path, guide):
    quiz = make_quiz(questions=1, guide=guide)
    path = write(tmp_path, "quiz.yaml", quiz_file_dump(quiz_export(quiz=quiz)))
    Quiz.objects.all().delete()
    GuidePath.objects.all().delete()
    with pytest.raises(CommandError) as error:
        run("importquiz", path)
    assert str(error.value) == (
        f"{path} was not imported:\n"
        "  quiz: guide_paths: unknown guide paths: data-parallelism.\n"
        "  Import the guide paths first: a guides file, or a bundle of the whole site "
        "(manage.py exportcontent, then importcontent)."
    )
    assert not Quiz.objects.exists()


def test_a_guides_file_is_imported_on_its_own(db, tmp_path):
    out = run("importquiz", "quizzes/demo/guides.yaml")
    assert out.startswith("Create: 2 guide paths.\n")
    assert run("importcontent", "quizzes/demo/guides.yaml") == "Nothing to change.\n"


def test_answered_content_the_bundle_lacks_blocks_the_whole_import(db, client, tmp_path, guide):
    quiz = make_quiz(questions=2, guide=guide)
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    data = quiz_export(quiz=quiz)
    data["questions"] = data["questions"][1:]
    data["questions"][0]["position"] = 2
    entries = {"guides.yaml": b"guide_paths: []\n", "quizzes/dp-quiz.yaml": quiz_file_dump(data)}
    bundle = write(
        tmp_path, "site.zip", archive.archive_write({k: _bytes(v) for k, v in entries.items()})
    )
    before = snapshot()
    with pytest.raises(CommandError, match="question at position 1: it would delete content"):
        run("importcontent", bundle)
    assert snapshot() == before


def _bytes(value) -> bytes:
    return value if isinstance(value, bytes) else value.encode()


# Languages


def test_a_french_file_fills_the_french_texts_of_the_quiz_of_its_category(db, tmp_path, guide):
    quiz = make_quiz(questions=3, guide=guide)
    title_only = write(tmp_path, "title.gift", gift_export(quiz_export(quiz=quiz), language="fr"))
    out = run("importquiz", title_only, "--language", "fr", "--dry-run")
    assert "no quiz of the site comes from this category" in out  # Never matched by title.
    Quiz.objects.filter(pk=quiz.pk).update(category="$course$/top/Parallelism")
    quiz.refresh_from_db()
    french = gift_export(quiz_export(quiz=quiz), language="fr")
    english_before = [
        (q.prompt_en, [c.text_en for c in q.choices.all()]) for q in quiz.questions.all()
    ]
    Question.objects.filter(quiz=quiz).update(prompt_fr="", explanation_fr="")
    Choice.objects.filter(question__quiz=quiz).update(text_fr="", feedback_fr="")
    path = write(tmp_path, "fr.gift", french)

    out = run("importquiz", path, "--language", "fr", "--dry-run")
    assert "Update: 3 questions, 12 choices.\n" in out
    assert "  update: quiz dp-quiz, question 1: prompt (fr), explanation (fr)\n" in out
    assert "fills quiz dp-quiz, of the category “$course$/top/Parallelism”." in out
    assert "  line 3 (“Question 1 prompt”): matched quiz dp-quiz, question 1.\n" in out
    assert Question.objects.get(quiz=quiz, position=1).prompt_fr == ""

    run("importquiz", path, "--language", "fr")
    questions = list(quiz.questions.order_by("position"))
    assert [q.prompt_fr for q in questions] == [f"Énoncé de la question {n}" for n in (1, 2, 3)]
    assert [q.explanation_fr for q in questions][0] == "Explication 1 en français."
    assert [c.text_fr for c in questions[0].choices.all()] == [f"Q1 choix {c}" for c in range(1, 5)]
    assert questions[0].choices.get(position=2).feedback_fr == "Q1 commentaire 2"
    assert [(q.prompt_en, [c.text_en for c in q.choices.all()]) for q in questions] == (
        english_before
    )


def test_a_french_file_says_what_did_not_match_and_makes_no_quiz(db, tmp_path, guide):
    quiz = make_quiz(questions=2, guide=guide)
    data = quiz_export(quiz=quiz)
    data["questions"][1]["choices"] = data["questions"][1]["choices"][:3]
    data["questions"].append(data["questions"][0])
    path = write(tmp_path, "fr.gift", gift_export(data, language="fr"))
    out = run("importquiz", path, "--language", "fr", "--quiz", "dp-quiz", "--dry-run")
    assert "  line 3 (“Question 1 prompt”): matched quiz dp-quiz, question 1.\n" in out
    assert (
        "  line 11 (“Question 2 prompt”): does not match quiz dp-quiz, question 2 (another "
        "kind or number of choices): left out.\n"
    ) in out
    assert (
        "  line 18 (“Question 1 prompt”): quiz dp-quiz, question 1 is filled by an earlier "
        "question of the file: left out.\n"
    ) in out
    unknown = write(tmp_path, "unknown.gift", "::Nowhere:: Où ?{=Ici ~Là}\n")
    out = run("importquiz", unknown, "--language", "fr", "--quiz", "dp-quiz", "--dry-run")
    assert (
        "  line 1 (“Nowhere”): quiz dp-quiz has no question of this name, and a question "
        "can't be made from fr texts alone: left out.\n"
    ) in out

    other = write(tmp_path, "new.gift", "$CATEGORY: Nouveau\n\nUn ?{=Oui ~Non}\n")
    before = snapshot()
    out = run("importquiz", other, "--language", "fr", "--import-rest")
    assert out.startswith("Nothing to change.\nLeft out:\n  quiz “Nouveau”: no quiz of the site")
    assert snapshot() == before


# Bad input: each refused with its place, quickly, and nothing changes


def _zip(entries: dict[str, bytes], compress=zipfile.ZIP_DEFLATED) -> bytes:
    """The archive, the same bytes whenever it is made: its entries are dated, not stamped
    with the clock (a parametrized test's id holds them, and every pytest-xdist worker must
    collect the same ids)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compress) as archive:
        for name, data in entries.items():
            entry = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            archive.writestr(entry, data, compress_type=compress)
    return buffer.getvalue()


def _demo_bundle() -> bytes:
    call_command("loaddemo", stdout=io.StringIO())
    return bundles.bundle_export()


def _flipped_entry(content: bytes) -> bytes:
    """The bundle with a byte of the first entry's compressed data changed."""
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        info = archive.infolist()[0]
    start = info.header_offset + 30 + len(info.filename.encode())
    return content[: start + 10] + bytes([content[start + 10] ^ 0xFF]) + content[start + 11 :]


BILLION_LAUGHS_XML = (
    '<?xml version="1.0"?><!DOCTYPE quiz [<!ENTITY lol0 "lol">'
    + "".join(f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10}">' for n in range(1, 10))
    + "]><quiz>&lol9;</quiz>"
).encode()
BILLION_LAUGHS_YAML = (
    b"slug: laughs\ntitle: a\nl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    + b"".join(f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]\n".encode() for n in range(1, 9))
    + b"questions: *l8\n"
)

BAD_INPUTS = {
    "truncated archive": (
        lambda: _demo_bundle()[:-100],
        "site.zip",
        "The file is not a zip archive, or it is truncated.",
    ),
    "archive with a broken entry": (
        lambda: _flipped_entry(_demo_bundle()),
        "site.zip",
        "guides.yaml: broken or truncated in the archive.",
    ),
    "zip bomb": (
        lambda: _zip({"guides.yaml": b"\0" * (8 * 2**20)}),
        "site.zip",
        "guides.yaml: compressed 1",
    ),
    "huge entry": (
        lambda: _zip({"images/big.png": b"\0" * (11 * 2**20)}),
        "site.zip",
        "images/big.png: 11.0 MB; at most 10.0 MB can be imported.",
    ),
    "too many entries": (
        lambda: _zip({f"images/{n}.png": b"" for n in range(archive.MAX_ENTRIES + 1)}),
        "site.zip",
        "The archive holds 2001 files; at most 2000 are read.",
    ),
    "dot-dot path": (
        lambda: _zip({"images/../../etc/passwd": b"x"}),
        "site.zip",
        "images/../../etc/passwd: a path outside the archive's folders.",
    ),
    "absolute path": (
        lambda: _zip({"/etc/passwd": b"x"}),
        "site.zip",
        "/etc/passwd: not a place a bundle has",
    ),
    "quiz named otherwise than its slug": (
        lambda: _zip({"quizzes/other.yaml": b"slug: tiny\ntitle: Tiny\n"}),
        "site.zip",
        "quizzes/other.yaml: the slug in the file must be the file's name (other).",
    ),
    "broken yaml in a bundle": (
        lambda: _zip({"quizzes/tiny.yaml": b"slug: [\n"}),
        "site.zip",
        "quizzes/tiny.yaml, line 2: broken YAML syntax",
    ),
    "50 MB XML": (
        lambda: b"<quiz>" + b" " * (50 * 2**20) + b"</quiz>",
        "big.xml",
        "The file is 50.0 MB; at most 20.0 MB can be imported.",
    ),
    "billion laughs XML": (
        lambda: BILLION_LAUGHS_XML,
        "laughs.xml",
        "The XML declares the entity lol0: entities are refused",
    ),
    "billion laughs YAML": (
        lambda: BILLION_LAUGHS_YAML,
        "laughs.yaml",
        "YAML aliases (*name) are not allowed in a quiz file.",
    ),
    "mixed encodings GIFT": (
        lambda: b"Un ?{=Oui ~Non}\n\n" + "Deux ?{=Déjà ~Non}\n".encode("latin-1"),
        "mixed.gift",
        "line 3: The file is not UTF-8 text (invalid byte at position 27).",
    ),
    "mixed encodings XML": (
        lambda: b"<quiz>\n<!-- \xc3\xa9 -->\n<!-- \xe9 -->\n</quiz>",
        "mixed.xml",
        "line 3: The file is not UTF-8 text",
    ),
}


@pytest.mark.parametrize("case", BAD_INPUTS)
def test_bad_input_is_refused_quickly_naming_its_place(db, tmp_path, case):
    make_content, name, message = BAD_INPUTS[case]
    content = make_content()
    before = snapshot()
    started = time.perf_counter()
    plan = import_plan(content=content, name=name)
    assert time.perf_counter() - started < 1
    assert not plan.can_apply
    assert any(message in line for line in _lines(plan.errors)), plan.errors
    with pytest.raises(CommandError, match="was not imported"):
        run("importcontent", write(tmp_path, name, content))
    assert snapshot() == before


def _lines(pairs) -> list[str]:
    return [f"{place}: {message}" if place else message for place, message in pairs]


def test_a_total_over_the_limit_is_refused_from_the_directory(db, monkeypatch):
    monkeypatch.setattr(archive, "MAX_UNCOMPRESSED", 2**20)
    content = _zip({f"images/{n}.png": bytes(600_000) for n in range(2)})
    assert import_plan(content=content, name="site.zip").errors == (
        ("", "1.1 MB; at most 1.0 MB can be imported."),
    )


def test_an_unclosed_brace_is_reported_and_the_rest_imported(db, tmp_path):
    path = write(tmp_path, "q.gift", "Good?{=Yes ~No}\n\nBroken {=a ~b\n\nAfter?{=Yes ~No}\n")
    out = run("importquiz", path, "--import-rest")
    assert "Left out:\n  line 3: this { is not closed by a } before the next blank line.\n" in out
    assert [q.prompt_en for q in Quiz.objects.get().questions.all()] == ["Good?", "After?"]


# The admin: upload, preview, confirm


def _upload(client, content: bytes, name: str, **fields):
    return client.post(IMPORT_URL, {"file": SimpleUploadedFile(name, content), **fields})


def test_admin_preview_writes_nothing_until_confirmed(editor_client, kept_uploads, settings):
    content = GIFT_EVERY_CONSTRUCT.encode()
    response = _upload(editor_client, content, "networks.txt", file_format="gift")
    assert response.status_code == 200
    page = response.content.decode()
    assert "Create: 2 quizzes, 16 questions, 34 choices." in page
    assert "line 48: an essay question: this site has no such question." in page
    assert not Quiz.objects.exists()
    kept = list((kept_uploads / "imports").iterdir())
    assert len(kept) == 1
    # Kept where no URL serves it: not in the media, which anyone may read.
    assert editor_client.get(f"/media/imports/{kept[0].name}").status_code == 404
    assert not (settings.MEDIA_ROOT / "imports").exists()

    # Questions are left out: the page refuses the file unless the editor imports the rest.
    assert 'name="import_rest" value="Import the rest"' in page
    assert 'name="confirm"' not in page
    token = response.context["token"]
    response = editor_client.post(CONFIRM_URL, {"token": token, "confirm": "Confirm"})
    assert response.status_code == 200 and not Quiz.objects.exists()
    token = response.context["token"]
    response = editor_client.post(CONFIRM_URL, {"token": token, "import_rest": "Import the rest"})
    assert response.status_code == 302
    assert Quiz.objects.get(slug="networks").questions.count() == 12
    assert list((kept_uploads / "imports").iterdir()) == []
    # The same token again: its file is gone.
    response = editor_client.post(CONFIRM_URL, {"token": token, "confirm": "Confirm"}, follow=True)
    assert "The file of this preview is gone: upload it again." in response.content.decode()


def test_admin_cancel_tampering_and_a_site_that_changed(editor_client, kept_uploads, guide):
    quiz = make_quiz(questions=2, guide=guide)
    data = quiz_export(quiz=quiz)
    data["title"]["fr"] = "Nouveau titre"
    content = quiz_file_dump(data).encode()
    response = _upload(editor_client, content, "quiz.yaml")
    assert response.context["plan"].changes == (
        Change(UPDATE, "quiz", "quiz dp-quiz", "title (fr)"),
    )
    before = snapshot()
    response = editor_client.post(CONFIRM_URL, {"token": response.context["token"], "cancel": "x"})
    assert response.status_code == 302
    assert snapshot() == before
    assert list((kept_uploads / "imports").iterdir()) == []

    token = _upload(editor_client, content, "quiz.yaml").context["token"]
    forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    response = editor_client.post(CONFIRM_URL, {"token": forged, "confirm": "x"}, follow=True)
    assert "The file of this preview is gone" in response.content.decode()
    (stored,) = (kept_uploads / "imports").iterdir()
    stored.write_bytes(b"slug: other\ntitle: Other\n")
    response = editor_client.post(CONFIRM_URL, {"token": token, "confirm": "x"}, follow=True)
    assert "The file of this preview is gone" in response.content.decode()
    assert snapshot() == before

    token = _upload(editor_client, content, "quiz.yaml").context["token"]
    Quiz.objects.filter(pk=quiz.pk).update(description_en="Edited meanwhile")
    response = editor_client.post(CONFIRM_URL, {"token": token, "confirm": "x"})
    assert response.status_code == 200
    assert "The site changed since the preview" in response.content.decode()
    assert "description (en)" in response.content.decode()
    assert Quiz.objects.get().title_fr == "Quiz sur le parallélisme des données"


def test_admin_refuses_an_oversize_upload_with_413(editor_client, db):
    content = b" " * (archive.MAX_ARCHIVE_BYTES + 1)
    response = _upload(editor_client, content, "site.zip")
    assert response.status_code == 413
    assert "The file is 50.0 MB; at most 50 MB can be imported." in response.content.decode()


def test_admin_bad_file_shows_its_problems_with_400(editor_client, db):
    response = _upload(editor_client, BILLION_LAUGHS_XML, "laughs.xml")
    assert response.status_code == 400
    assert "The XML declares the entity lol0" in response.content.decode()
    assert response.context["token"] == ""


def test_admin_french_fill_of_a_target_quiz(editor_client, guide):
    quiz = make_quiz(questions=2, guide=guide, french=False)
    french = make_quiz(slug="fr-source", questions=2)
    content = gift_export(quiz_export(quiz=french), language="fr").encode()
    response = _upload(editor_client, content, "fr.gift", language="fr", quiz="dp-quiz")
    assert "line 3 (“Question 1 prompt”): matched quiz dp-quiz, question 1." in (
        response.content.decode()
    )
    editor_client.post(CONFIRM_URL, {"token": response.context["token"], "confirm": "x"})
    assert quiz.questions.get(position=2).prompt_fr == "Énoncé de la question 2"
    assert list(Quiz.objects.get(slug="dp-quiz").guide_paths.all()) == [guide]


def test_admin_refuses_guide_paths_to_an_editor_who_may_not_write_them(client, db):
    user = make_staff("quiz-only", "Editors")
    user.groups.clear()
    user.user_permissions.set(
        Permission.objects.filter(codename__in=["add_quiz", "change_quiz", "view_quiz"])
    )
    client.force_login(user)
    with open("quizzes/demo/guides.yaml", "rb") as file:
        response = _upload(client, file.read(), "guides.yaml")
    assert response.status_code == 400
    assert "This file writes guide paths, which you may not add or change." in (
        response.content.decode()
    )
    assert not GuidePath.objects.exists()


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("site.zip", b"", "bundle"),
        ("upload", _zip({"guides.yaml": b"guide_paths: []\n"}), "bundle"),
        ("upload", b'\xef\xbb\xbf<?xml version="1.0"?><quiz/>', "moodle-xml"),
        ("upload", b"# A quiz\nslug: tiny\n", "yaml"),
        ("upload", b"guide_paths: []\n", "yaml"),
        ("upload", b"Is it?{T}\n", "gift"),
        ("QUIZ.YML", b"", "yaml"),
        ("questions.txt", b"", "gift"),
    ],
)
def test_the_format_comes_from_the_name_or_else_the_first_bytes(name, content, expected):
    assert format_detect(name=name, content=content) == expected


def test_exportcontent_writes_the_zip_to_standard_output(db, capsysbinary):
    make_quiz(questions=1)
    call_command("exportcontent")
    assert capsysbinary.readouterr().out == bundles.bundle_export()


def test_a_file_in_a_bundle_that_is_no_image_is_left_out(db):
    content = archive.archive_write({"guides.yaml": b"guide_paths: []\n", "images/a.png": b"png"})
    plan = import_plan(content=content, name="site.zip")
    ((place, message),) = plan.problems
    assert place == "images/a.png" and "not an image" in message
    assert plan.changes == () and plan.images == ()


def test_only_what_changes_is_written(db, tmp_path, guide):
    changed, unchanged = make_quiz(questions=2, guide=guide), make_quiz(slug="same", questions=2)
    bundle = bundles.bundle_export()
    Quiz.objects.filter(pk=changed.pk).update(title_fr="Ancien titre")
    stamps = dict(Quiz.objects.values_list("slug", "updated_at"))
    guide_before = list(GuidePath.objects.values())
    plan = import_plan(content=bundle, name="site.zip")
    assert plan.quiz_slugs == ("dp-quiz",)
    assert not plan.writes_guide_paths
    import_apply(plan=plan)
    assert Quiz.objects.get(slug="same").updated_at == stamps["same"]
    assert Quiz.objects.get(slug="dp-quiz").updated_at > stamps["dp-quiz"]
    assert list(GuidePath.objects.values()) == guide_before
    assert unchanged.questions.count() == 2
