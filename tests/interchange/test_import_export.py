import html
import io
import zipfile
from decimal import Decimal

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from quizzes.interchange.importing import quiz_import
from quizzes.interchange.quizfile import (
    QuizFileError,
    quiz_export,
    quiz_file_dump,
    quiz_file_read,
)
from quizzes.models import Choice, Question, Quiz
from tests.factories import (
    answer,
    choice_of,
    make_numerical,
    make_quiz,
    make_short_answer,
    start,
)

IMPORT_URL = "/admin/quizzes/quiz/import/"
CONFIRM_URL = "/admin/quizzes/quiz/import/confirm/"


@pytest.fixture(autouse=True)
def kept_uploads(settings, tmp_path):
    """The files kept between an import's preview and its confirmation."""
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def quiz_file(**changes) -> dict:
    data = {
        "slug": "tiny-quiz",
        "level": "beginner",
        "is_published": True,
        "guide_paths": ["data-parallelism"],
        "title": {"en": "Tiny quiz", "fr": "Petit quiz"},
        "questions": [
            {
                "prompt": {"en": "One?", "fr": "Un ?"},
                "choices": [
                    {"text": {"en": "Yes", "fr": "Oui"}, "correct": True},
                    {"text": {"en": "No", "fr": "Non"}, "correct": False},
                ],
            },
            {
                "prompt": "Two?",
                "choices": [{"text": "A", "correct": False}, {"text": "B", "correct": True}],
            },
            {
                "prompt": "Three?",
                "choices": [{"text": "A", "correct": True}, {"text": "B"}],
            },
        ],
    }
    return data | changes


def upload(client, content: bytes, name: str = "quiz.yaml", **fields):
    """Upload a file in the admin and confirm its preview; the preview if it can't be."""
    response = client.post(IMPORT_URL, {"file": SimpleUploadedFile(name, content), **fields})
    if response.status_code != 200 or not response.context["token"]:
        return response
    return client.post(CONFIRM_URL, {"token": response.context["token"], "confirm": "Confirm"})


def snapshot() -> list:
    return [
        list(Quiz.objects.values()),
        list(Question.objects.values()),
        list(Choice.objects.values()),
    ]


def test_export_then_import_gives_back_the_same_content(editor_client, guide):
    quiz = make_quiz(questions=3, guide=guide, shuffle_choices=True)
    quiz.questions.filter(position=3).update(position=7, kind="multiple")
    exported = quiz_export(quiz=quiz)
    before = snapshot()
    Quiz.objects.all().delete()

    response = upload(editor_client, quiz_file_dump(exported).encode())
    assert response.status_code == 302
    quiz = Quiz.objects.get(slug="dp-quiz")
    assert quiz_export(quiz=quiz) == exported
    strip = {"id", "quiz_id", "question_id", "created_at", "updated_at"}
    after = snapshot()
    for rows_before, rows_after in zip(before, after, strict=True):
        assert [{k: v for k, v in row.items() if k not in strip} for row in rows_before] == [
            {k: v for k, v in row.items() if k not in strip} for row in rows_after
        ]


def test_a_question_keeping_its_choice_order_round_trips_through_the_quiz_file(guide):
    quiz = make_quiz(questions=3, guide=guide, shuffle_choices=True)
    quiz.questions.filter(position=2).update(keep_choice_order=True)
    exported = quiz_export(quiz=quiz)
    # Written only where it is true, as the format's default is false.
    assert ["keep_choice_order" in question for question in exported["questions"]] == [
        False,
        True,
        False,
    ]
    assert exported["questions"][1]["keep_choice_order"] is True
    Quiz.objects.all().delete()
    quiz_import(data=quiz_file_read(content=quiz_file_dump(exported).encode()))
    kept = Question.objects.filter(quiz__slug="dp-quiz").order_by("position")
    assert [question.keep_choice_order for question in kept] == [False, True, False]


def test_a_numerical_question_round_trips_with_its_values_and_tolerances(guide):
    quiz = make_quiz(questions=2, guide=guide)
    question = make_numerical(quiz, 1)
    question.choices.filter(position=2).update(tolerance=Decimal("0.25"), credit=Decimal("0.5"))
    exported = quiz_export(quiz=quiz)
    item = exported["questions"][0]
    assert item["kind"] == "numerical"
    assert [(c["text"], c.get("tolerance"), c.get("credit")) for c in item["choices"]] == [
        ({"en": "1024", "fr": "1 024"}, None, None),  # 0, the default, is not written.
        ({"en": "32", "fr": "32"}, "0.25", "0.5"),
    ]
    Quiz.objects.all().delete()
    quiz_import(data=quiz_file_read(content=quiz_file_dump(exported).encode()))
    assert quiz_export(quiz=Quiz.objects.get()) == exported
    kept = Choice.objects.get(position=2, question__kind="numerical")
    assert (kept.tolerance, kept.credit) == (Decimal("0.25"), Decimal("0.5"))


def test_a_short_answer_question_round_trips_with_its_answers_and_options(guide):
    quiz = make_quiz(questions=2, guide=guide)
    question = make_short_answer(quiz, 1)
    question.case_sensitive = question.ignore_accents = True
    question.save()
    question.choices.filter(position=2).update(credit=Decimal("0.25"))
    exported = quiz_export(quiz=quiz)
    item = exported["questions"][0]
    assert (item["kind"], item["case_sensitive"], item["ignore_accents"]) == (
        "short_answer",
        True,
        True,
    )
    assert [(c["text"], c["correct"], c.get("credit")) for c in item["choices"]] == [
        ({"en": "all-reduce", "fr": "réduction globale"}, True, None),
        ({"en": "*broadcast*", "fr": "*diffusion*"}, False, "0.25"),
    ]
    assert "case_sensitive" not in exported["questions"][1]  # False, the default, is not written.
    Quiz.objects.all().delete()
    quiz_import(data=quiz_file_read(content=quiz_file_dump(exported).encode()))
    assert quiz_export(quiz=Quiz.objects.get()) == exported


@pytest.mark.parametrize(
    ("question", "says"),
    [
        ({"choices": [{"text": " ", "correct": True}]}, "answer 1: write the answer it accepts."),
        ({"choices": [{"text": "a", "correct": False}]}, "Mark at least one answer as correct."),
        ({"case_sensitive": "yes", "choices": [{"text": "a", "correct": True}]}, "case_sensitive"),
    ],
)
def test_a_short_answer_question_s_bad_answers_are_refused(guide, question, says):
    data = {
        "slug": "words",
        "title": "Words",
        "questions": [{"kind": "short_answer", "prompt": "Which?", **question}],
    }
    with pytest.raises(QuizFileError) as refused:
        quiz_import(data=data)
    assert says in str(refused.value.errors)
    assert not Quiz.objects.filter(slug="words").exists()


@pytest.mark.parametrize(
    ("choice", "says"),
    [
        ({"text": "many", "correct": True}, "“many” is not a number"),
        ({"text": "1024", "correct": True, "tolerance": "wide"}, "tolerance must be a number"),
        ({"text": "1024", "correct": True, "tolerance": -1}, "tolerance must be 0 or more"),
        ({"text": "1024", "correct": True, "credit": "half"}, "credit must be a number"),
        ({"text": "1024", "correct": True, "credit": 1.5}, "less than or equal to 1"),
        ({"text": "1024", "correct": True, "credit": -0.5}, "greater than or equal to 0"),
        ({"text": "1024", "correct": True, "credit": "9" * 5000}, "no more than 6 digits"),
        ({"text": "1024", "correct": False}, "Mark at least one value as correct."),
        ({"text": {"en": "1024", "fr": "1 000"}, "correct": True}, "give different numbers"),
    ],
)
def test_a_numerical_question_s_bad_values_are_refused(guide, choice, says):
    data = {
        "slug": "numbers",
        "title": "Numbers",
        "questions": [{"kind": "numerical", "prompt": "How many?", "choices": [choice]}],
    }
    with pytest.raises(QuizFileError) as refused:
        quiz_import(data=data)
    assert says in str(refused.value.errors)
    assert not Quiz.objects.filter(slug="numbers").exists()


def test_a_quiz_file_question_keeps_its_choice_order_or_not(guide):
    data = with_question(1, keep_choice_order=True)
    quiz_import(data=data)
    kept = Question.objects.filter(quiz__slug="tiny-quiz").order_by("position")
    assert [question.keep_choice_order for question in kept] == [True, False, False]
    quiz_import(data=with_question(1, keep_choice_order=False))
    assert not Question.objects.filter(keep_choice_order=True).exists()


def test_demo_files_round_trip(db):
    call_command("loaddemo")
    for quiz in Quiz.objects.all():
        exported = quiz_export(quiz=quiz)
        assert quiz_file_read(content=quiz_file_dump(exported).encode()) == exported
        quiz_import(data=exported)
        assert quiz_export(quiz=quiz) == exported


def test_export_action_downloads_yaml_and_a_bundle_for_several(editor_client, guide):
    quiz = make_quiz(questions=2, guide=guide)
    other = make_quiz(slug="other", questions=1)
    response = editor_client.post(
        "/admin/quizzes/quiz/", {"action": "export", "_selected_action": [quiz.pk]}
    )
    assert response["Content-Disposition"] == 'attachment; filename="dp-quiz.yaml"'
    data = yaml.safe_load(response.content)
    assert data["title"] == {
        "en": "Data parallelism quiz",
        "fr": "Quiz sur le parallélisme des données",
    }
    assert data["guide_paths"] == ["data-parallelism"]
    assert data["questions"][1]["choices"][1]["feedback"] == {
        "en": "Q2 feedback 2",
        "fr": "Q2 commentaire 2",
    }
    response = editor_client.post(
        "/admin/quizzes/quiz/", {"action": "export", "_selected_action": [quiz.pk, other.pk]}
    )
    names = zipfile.ZipFile(io.BytesIO(response.content)).namelist()
    assert names == ["quizzes/dp-quiz.yaml", "quizzes/other.yaml"]


def test_import_updates_by_slug_and_keeps_answered_content(editor_client, client, guide):
    quiz = make_quiz(slug="tiny-quiz", questions=4, guide=guide)
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    response = upload(editor_client, quiz_file_dump(quiz_file()).encode())
    assert response.status_code == 302
    quiz.refresh_from_db()
    assert quiz.title_fr == "Petit quiz"
    assert [q.prompt_en for q in quiz.questions.all()] == ["One?", "Two?", "Three?"]
    assert quiz.questions.get(position=1).choices.count() == 2
    assert attempt.answers.count() == 1

    # Dropping the answered first question would lose an answer: nothing changes.
    before = snapshot()
    data = quiz_file(questions=quiz_file()["questions"][1:])
    data["questions"][0]["position"] = 2
    data["questions"][1]["position"] = 3
    response = upload(editor_client, quiz_file_dump(data).encode())
    assert response.status_code == 400
    assert "it would delete content that learners have answered." in response.content.decode()
    assert snapshot() == before


def test_importquiz_and_exportquiz_commands(tmp_path, capsys, guide):
    path = tmp_path / "tiny.yaml"
    path.write_text(quiz_file_dump(quiz_file()), encoding="utf-8")
    call_command("importquiz", str(path))
    assert capsys.readouterr().out == (
        "Create: 1 quiz, 3 questions, 6 choices.\n"
        "  create: quiz tiny-quiz: “Tiny quiz”: 3 questions, 6 choices\n"
        "Imported.\n"
    )
    call_command("exportquiz", "tiny-quiz")
    assert yaml.safe_load(capsys.readouterr().out)["title"] == {
        "en": "Tiny quiz",
        "fr": "Petit quiz",
    }
    with pytest.raises(CommandError, match="There is no quiz with the slug 'nope'"):
        call_command("exportquiz", "nope")
    path.write_text("slug: [", encoding="utf-8")
    with pytest.raises(CommandError, match="line 1: broken YAML syntax"):
        call_command("importquiz", str(path))


def broken(**changes) -> dict:
    return quiz_file(**changes)


def with_question(number: int, **changes) -> dict:
    data = quiz_file()
    data["questions"][number - 1] |= changes
    return data


def with_choice(question: int, choice: int, **changes) -> dict:
    data = quiz_file()
    data["questions"][question - 1]["choices"][choice - 1] |= changes
    return data


BAD_FILES = {
    "broken syntax": (
        b"slug: tiny\ntitle: {en: 'Tiny'\nquestions: []\n",
        "line 3: broken YAML syntax",
    ),
    "not a mapping": (b"- just\n- a list\n", "The file must hold a mapping of fields"),
    "binary": (bytes(range(256)), "This is a binary file, not a YAML text file."),
    "not utf-8": ("slug: café\n".encode("latin-1"), "The file is not UTF-8 text"),
    "unknown field": (broken(colour="red"), "quiz: unknown fields: colour"),
    "unknown question field": (with_question(2, hint="x"), "question 2: unknown fields: hint"),
    "unknown choice field": (
        with_choice(3, 2, score=1),
        "question 3, choice 2: unknown fields: score",
    ),
    "wrong type": (broken(pass_mark="high"), "quiz: pass_mark must be a whole number."),
    "keep_choice_order as text": (
        with_question(2, keep_choice_order="yes"),
        "question 2: keep_choice_order must be true / false.",
    ),
    "bool as text": (
        with_choice(1, 2, correct="no"),
        "question 1, choice 2: correct must be true / false.",
    ),
    "missing correct choice": (
        with_choice(2, 2, correct=False),
        "question 2: Mark exactly one choice as correct.",
    ),
    "duplicate positions": (
        with_question(3, position=1),
        "question 3: position 1 is already used by question 1.",
    ),
    "duplicate choice positions": (
        with_choice(1, 2, position=1),
        "question 1, choice 2: position 1 is already used by question 1, choice 1.",
    ),
    "unknown guide path": (
        broken(guide_paths=["nope"]),
        "quiz: guide_paths: unknown guide paths: nope.",
    ),
    "missing title": (broken(title={"fr": "Seulement"}), "quiz: title needs a text in en."),
    "unknown language": (
        with_question(1, prompt={"en": "One?", "de": "Eins?"}),
        "question 1: prompt has unknown languages: de.",
    ),
    "bad url": (
        with_question(2, guide_url="not a url"),
        "question 2: guide_url_en: Enter a valid URL.",
    ),
    "bad slug": (broken(slug="Tiny Quiz"), "quiz: slug: Enter a valid “slug”"),
    "bad level": (broken(level="expert"), "quiz: level: Value 'expert' is not a valid choice."),
    "no questions": (broken(questions=[]), "quiz: A published quiz needs at least one question."),
    "questions not a list": (broken(questions={"a": 1}), "quiz: questions must be a list."),
    "missing slug": ({"title": "x"}, "quiz: slug is missing."),
}


@pytest.mark.parametrize("case", BAD_FILES)
def test_bad_file_is_refused_with_its_place_and_changes_nothing(editor_client, guide, case):
    make_quiz(slug="tiny-quiz", questions=2, guide=guide)
    before = snapshot()
    content, message = BAD_FILES[case]
    if isinstance(content, dict):
        content = quiz_file_dump(content).encode()
    response = upload(editor_client, content)
    assert response.status_code == 400
    assert message in html.unescape(response.content.decode())
    assert snapshot() == before
    with pytest.raises(QuizFileError):
        quiz_import(data=quiz_file_read(content=content))


def test_every_problem_is_reported_at_once(guide):
    data = with_choice(2, 2, correct=False) | {"colour": "red", "guide_paths": ["nope"]}
    with pytest.raises(QuizFileError) as error:
        quiz_import(data=data)
    assert error.value.messages == [
        "quiz: unknown fields: colour (allowed: category, description, guide_paths, "
        "is_published, level, pass_mark, questions, shuffle_choices, slug, title).",
        "quiz: guide_paths: unknown guide paths: nope.",
        "question 2: Mark exactly one choice as correct.",
    ]


def test_import_errors_are_in_the_editors_language(editor_client, guide):
    content = quiz_file_dump(with_choice(2, 2, correct=False)).encode()
    response = editor_client.post(
        IMPORT_URL,
        {"file": SimpleUploadedFile("quiz.yaml", content)},
        HTTP_ACCEPT_LANGUAGE="fr",
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert "Le fichier n’a pas été importé" in page
    assert "question 2: Marquez exactement un choix comme correct." in page


def _units_quiz(**question) -> dict:
    return {
        "slug": "numbers",
        "title": "Numbers",
        "questions": [
            {
                "kind": "numerical",
                "prompt": "How much memory do the gradients take?",
                "units": [{"name": "MB"}, {"name": "GB", "multiplier": "0.0009765625"}],
                "units_required": True,
                "choices": [
                    {"text": "1024", "correct": True, "tolerance": "1%"},
                    {"text": "512", "tolerance": "0.5", "feedback": "Half of it."},
                ],
            }
            | question
        ],
    }


def test_a_numerical_question_s_units_and_relative_tolerance_round_trip(guide):
    quiz = quiz_import(data=_units_quiz())
    question = quiz.questions.get()
    assert question.units_required and not question.units_left
    assert [(u.position, u.name, u.multiplier) for u in question.units.all()] == [
        (1, "MB", Decimal(1)),
        (2, "GB", Decimal("0.0009765625")),
    ]
    assert [(c.tolerance, c.relative_tolerance) for c in question.choices.all()] == [
        (Decimal(1), True),
        (Decimal("0.5"), False),
    ]
    exported = quiz_export(quiz=quiz)
    item = exported["questions"][0]
    assert item["units"] == [{"name": "MB"}, {"name": "GB", "multiplier": "0.0009765625"}]
    assert item["units_required"] is True and "units_left" not in item
    assert [c.get("tolerance") for c in item["choices"]] == ["1%", "0.5"]
    Quiz.objects.all().delete()
    quiz_import(data=quiz_file_read(content=quiz_file_dump(exported).encode()))
    assert quiz_export(quiz=Quiz.objects.get()) == exported


def test_an_import_that_changes_only_the_units_writes_them_anew(guide):
    quiz = quiz_import(data=_units_quiz())
    units = [{"name": "kB", "multiplier": 1024}, {"name": "MB"}]
    quiz_import(data=_units_quiz(units=units, units_left=True))
    question = quiz.questions.get()
    assert [(u.name, u.multiplier) for u in question.units.all()] == [
        ("kB", Decimal(1024)),
        ("MB", Decimal(1)),
    ]
    assert question.units_left
    quiz_import(data=_units_quiz(units=[]))
    assert not question.units.exists()


@pytest.mark.parametrize(
    ("question", "says"),
    [
        ({"units": [{"name": "MB", "multiplier": 0}]}, "its multiplier must be a number above 0"),
        ({"units": [{"name": "MB", "multiplier": -2}]}, "its multiplier must be a number above 0"),
        ({"units": [{"name": "MB", "multiplier": "NaN"}]}, "multiplier must be a number"),
        ({"units": [{"name": "MB", "multiplier": "1e999"}]}, "its multiplier has too many digits"),
        ({"units": [{"name": "MB", "multiplier": "1e-16"}]}, "its multiplier has too many digits"),
        ({"units": [{"name": "M" * 10_000}]}, "its name is too long: 30 characters at most"),
        ({"units": [{"name": 5}]}, "write its name"),
        ({"units": [{"name": "MB", "size": 1}]}, "unknown fields: size"),
        ({"units": "MB"}, "units must be a list"),
        ({"units": [{"name": f"u{n}"} for n in range(1_000)]}, "too many units: 50 at most"),
        ({"units_required": "yes"}, "units_required must be true / false"),
        ({"kind": "single", "units": [{"name": "MB"}]}, "units are for numerical questions"),
        ({"choices": [{"text": "1", "correct": True, "tolerance": "x%"}]}, "tolerance must be"),
        ({"choices": [{"text": "1", "correct": True, "tolerance": "-1%"}]}, "0 or more"),
    ],
)
def test_bad_units_are_refused_and_change_nothing(guide, question, says):
    with pytest.raises(QuizFileError) as refused:
        quiz_import(data=_units_quiz(**question))
    assert says in str(refused.value.errors)
    assert not Quiz.objects.filter(slug="numbers").exists()


def test_a_file_without_units_leaves_a_question_s_units_as_they_are(guide):
    """GIFT has no units: its import, as a quiz file without `units`, keeps them."""
    quiz = quiz_import(data=_units_quiz())
    data = _units_quiz()
    del data["questions"][0]["units"]
    quiz_import(data=data)
    assert [unit.name for unit in quiz.questions.get().units.all()] == ["MB", "GB"]
