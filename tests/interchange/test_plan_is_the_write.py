"""One plan, one writer (issue 21): what the admin's preview lists is what confirming it
writes, row for row and field for field, compared with the database before and after."""

import copy
import io
from collections import Counter

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from guides.models import GuidePath
from quizzes.interchange import bundles
from quizzes.interchange.errors import QuizFileError
from quizzes.interchange.importing import (
    CHOICE,
    CREATE,
    DELETE,
    GUIDE_PATH,
    IMAGE,
    QUESTION,
    QUIZ,
    UPDATE,
    import_apply,
    import_plan,
)
from quizzes.interchange.quizfile import quiz_export, quiz_file_dump
from quizzes.markup.images import image_check, image_name
from quizzes.models import Choice, ContentImage, Question, Quiz, translated_fields
from tests.factories import answer, choice_of, make_guide, make_quiz, start

IMPORT_URL = "/admin/quizzes/quiz/import/"
CONFIRM_URL = "/admin/quizzes/quiz/import/confirm/"
_SKIP = {"id", "quiz_id", "question_id", "slug", "file", "created_at", "updated_at"}


def _fields(obj) -> dict:
    """A row's own values: not its key, its stamp, nor modeltranslation's mirror of a language."""
    mirrors = set(translated_fields(type(obj)))
    if isinstance(obj, Question):
        mirrors.add("key")  # The key.
    if isinstance(obj, Choice):
        mirrors.add("position")  # In the key.
    return {
        field.attname: "" if getattr(obj, field.attname) is None else getattr(obj, field.attname)
        for field in obj._meta.concrete_fields
        if field.attname not in _SKIP and field.name not in mirrors
    }


def rows() -> dict:
    """Every row of the content by the key a plan's write names it with."""
    found = {(GUIDE_PATH, (guide.slug,)): _fields(guide) for guide in GuidePath.objects.all()}
    for quiz in Quiz.objects.prefetch_related("guide_paths"):
        slugs = tuple(sorted(guide.slug for guide in quiz.guide_paths.all()))
        found[QUIZ, (quiz.slug,)] = {**_fields(quiz), "guide_paths": slugs}
    for question in Question.objects.select_related("quiz"):
        found[QUESTION, (question.quiz.slug, question.key)] = _fields(question)
    for choice in Choice.objects.select_related("question__quiz"):
        key = (choice.question.quiz.slug, choice.question.key, choice.position)
        found[CHOICE, key] = _fields(choice)
    for image in ContentImage.objects.all():
        stored = default_storage.exists(image.file.name)
        found[IMAGE, (image.file.name,)] = {**_fields(image), "stored": stored}
    return found


def done(before: dict, after: dict) -> set:
    """What the database says was written: (kind, thing, key, the fields an update changed)."""
    written = {(CREATE, *row, None) for row in after.keys() - before.keys()}
    written |= {(DELETE, *row, None) for row in before.keys() - after.keys()}
    for row in after.keys() & before.keys():
        changed = frozenset(name for name in after[row] if after[row][name] != before[row][name])
        if changed:
            written.add((UPDATE, *row, changed))
    return written


def planned(plan) -> set:
    return {
        (
            write.change.kind,
            write.change.thing,
            write.key,
            frozenset(write.values) if write.change.kind == UPDATE else None,
        )
        for write in plan.writes
    }


def _png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (40, 20), "navy").save(buffer, "PNG")
    return buffer.getvalue()


def _yaml(data: dict) -> tuple[bytes, str]:
    return quiz_file_dump(data).encode(), "quiz.yaml"


def new_quiz(client):
    guide = make_guide()
    data = quiz_export(quiz=make_quiz(questions=3, guide=guide))
    Quiz.objects.all().delete()
    return _yaml(data)


def updated_quiz(client):
    make_guide(slug="other")
    data = quiz_export(quiz=make_quiz(questions=3, guide=make_guide()))
    data["title"]["fr"] = "Nouveau titre"
    data["level"] = "advanced"
    data["guide_paths"] = ["other"]
    data["questions"][0]["choices"][1]["text"]["en"] = "Changed"
    data["questions"][1]["choices"].append({"text": {"en": "A new choice"}, "correct": False})
    new = {**copy.deepcopy(data["questions"][0]), "key": "new", "prompt": {"en": "New?"}}
    data["questions"].append(new)
    return _yaml(data)


def moved_questions(client):
    """The questions in another order, found by their keys: each moves, none is rewritten."""
    data = quiz_export(quiz=make_quiz(questions=3, guide=make_guide()))
    data["questions"].reverse()
    choices = [{"text": "A", "correct": True}, {"text": "B"}]
    data["questions"].insert(1, {"key": "new", "prompt": "New?", "choices": choices})
    return _yaml(data)


def deleted_question(client):
    data = quiz_export(quiz=make_quiz(questions=3, guide=make_guide()))
    data["questions"][2]["position"] = 3
    del data["questions"][1]
    data["questions"][0]["choices"].pop()
    return _yaml(data)


def refused_delete(client):
    quiz = make_quiz(questions=3, guide=make_guide())
    answer(client, start(client, quiz), 1, choice_of(quiz, 1, correct=True))
    data = quiz_export(quiz=quiz)
    data["title"]["fr"] = "Nouveau titre"
    data["questions"][1]["position"] = 2
    data["questions"][2]["position"] = 3
    del data["questions"][0]
    return _yaml(data)


def bundle_with_images(client):
    data = _png()
    name = image_name(data=data, extension=image_check(data=data))
    default_storage.save(name, io.BytesIO(data))
    ContentImage.objects.create(file=name, alt_en="A diagram")
    quiz = make_quiz(questions=2, guide=make_guide())
    quiz.questions.update(explanation_en=f"![A diagram](/media/{name})")
    make_quiz(slug="kept", questions=1)
    content = bundles.bundle_export()
    Quiz.objects.exclude(slug="kept").delete()
    GuidePath.objects.all().delete()
    ContentImage.objects.all().delete()
    default_storage.delete(name)
    return content, "site.zip"


CASES = [
    new_quiz,
    updated_quiz,
    deleted_question,
    moved_questions,
    refused_delete,
    bundle_with_images,
]
KINDS = {  # What each case must write at least, so that none passes by writing nothing.
    new_quiz: {(CREATE, QUIZ), (CREATE, QUESTION), (CREATE, CHOICE)},
    updated_quiz: {(UPDATE, QUIZ), (UPDATE, CHOICE), (CREATE, CHOICE), (CREATE, QUESTION)},
    deleted_question: {(DELETE, QUESTION), (DELETE, CHOICE)},
    moved_questions: {(UPDATE, QUESTION), (CREATE, QUESTION)},
    bundle_with_images: {(CREATE, GUIDE_PATH), (CREATE, QUIZ), (CREATE, IMAGE)},
}


@pytest.mark.parametrize("case", CASES, ids=[case.__name__ for case in CASES])
def test_the_preview_lists_what_the_write_does(client, editor_client, case):
    content, name = case(client)
    before = rows()
    preview = editor_client.post(IMPORT_URL, {"file": SimpleUploadedFile(name, content)})
    plan = preview.context["plan"]
    if case is refused_delete:
        assert preview.status_code == 400 and preview.context["token"] == ""
        assert ("quiz dp-quiz, question at position 1", plan.errors[0][1]) in plan.errors
        assert "learners have answered" in plan.errors[0][1]
        assert rows() == before
        return
    assert preview.status_code == 200, plan.errors
    assert len(planned(plan)) == len(plan.writes)  # No row is written twice.
    assert KINDS[case] <= {(write.change.kind, write.change.thing) for write in plan.writes}
    confirmed = editor_client.post(CONFIRM_URL, {"token": preview.context["token"], "x": "1"})
    assert confirmed.status_code == 302
    after = rows()
    assert done(before, after) == planned(plan)
    for write in plan.writes:
        if write.change.kind != DELETE:
            row = after[write.change.thing, write.key]
            for field, value in write.values.items():
                assert row[field] == (tuple(sorted(value)) if field == "guide_paths" else value)
    counts = Counter((kind, thing) for kind, thing, _key, _changed in done(before, after))
    assert dict(counts) == {(kind, thing): number for kind, thing, number in plan.counts}
    again = editor_client.post(IMPORT_URL, {"file": SimpleUploadedFile(name, content)})
    assert again.context["plan"].writes == ()  # Written once, nothing is left to write.


def test_a_plan_outrun_by_an_answer_writes_nothing(client, db):
    quiz = make_quiz(questions=2, guide=make_guide())
    data = quiz_export(quiz=quiz)
    data["title"]["fr"] = "Nouveau titre"
    del data["questions"][1]
    plan = import_plan(content=quiz_file_dump(data).encode(), name="quiz.yaml")
    assert plan.can_apply
    answer(client, start(client, quiz), 1, choice_of(quiz, 1, correct=True))
    answer(client, Quiz.objects.get().attempts.get(), 2, choice_of(quiz, 2, correct=True))
    before = rows()
    with pytest.raises(QuizFileError, match="learners have answered"):
        import_apply(plan=plan)
    assert rows() == before
