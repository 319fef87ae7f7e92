"""Compiled statements (quizsite/queries.py) can't drift from the models: every one in the
code is checked against its model's `_meta` as it is now, and the check trips on a field,
a default or a translation the statement doesn't handle."""

import gc
import importlib
import os
import pkgutil
import subprocess
from contextlib import contextmanager

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import models

import quizsite
import quizzes
from quizsite.queries import REGISTRY, CompiledInsert, CompiledQuery, Placeholder
from quizzes.models import AnswerChoice, Attempt, Quiz
from tests.factories import make_quiz
from tests.quizsite.servers import PYTHON, ROOT


def _code_statements() -> list:
    """Every compiled statement the code makes: all its modules imported, the registry read."""
    for package in (quizsite, quizzes):
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if ".migrations." not in module.name:
                importlib.import_module(module.name)
    gc.collect()  # The statements other tests made and dropped.
    return list(REGISTRY)


@contextmanager
def field_added(model: type[models.Model], name: str, field: models.Field):
    """The model with one field more, as if models.py had gained it, until the block ends."""
    field.contribute_to_class(model, name)
    try:
        yield field
    finally:
        model._meta.local_fields.remove(field)
        model._meta._expire_cache()
        delattr(model, field.attname)


def test_every_compiled_statement_of_the_code_fits_the_models():
    statements = _code_statements()

    assert any(isinstance(s, CompiledQuery) for s in statements)
    assert {repr(s): s.problems() for s in statements if s.problems()} == {}


def test_a_field_the_model_gains_without_a_default_trips_the_check():
    insert = CompiledInsert(AnswerChoice, "answer", "choice")
    assert insert.problems() == []

    with field_added(AnswerChoice, "weight", models.IntegerField()):
        assert insert.problems() == ["AnswerChoice must be given weight"]
        with pytest.raises(ImproperlyConfigured, match="must give weight"):
            CompiledInsert(AnswerChoice, "answer", "choice")

    assert insert.problems() == []


def test_a_default_the_model_gains_trips_the_check_of_an_insert_compiled_before():
    insert = CompiledInsert(AnswerChoice, "answer", "choice")

    with field_added(AnswerChoice, "weight", models.IntegerField(default=1)):
        assert insert.problems() == [
            "AnswerChoice's defaulted fields are ['weight'], compiled with []"
        ]
        assert [f.name for f in CompiledInsert(AnswerChoice, "answer", "choice").fields] == [
            "answer",
            "choice",
            "weight",
        ]


def test_an_insert_writes_the_model_defaults_of_the_fields_it_is_not_given(db):
    quiz = make_quiz(questions=1)
    given = ("public_id", "quiz", "language", "learner_key")
    insert = CompiledInsert(Attempt, *given, returning_pk=True)

    pk = insert(
        {"public_id": Attempt().public_id, "quiz": quiz.pk, "language": "en", "learner_key": "k"}
    )

    attempt = Attempt.objects.get(pk=pk)
    assert (attempt.kind, attempt.is_first) == ("quiz", False)
    assert attempt.started_at is not None  # auto_now_add, as save() gives it.
    assert (attempt.user, attempt.completed_at, attempt.question_ids) == (None, None, None)


def test_a_translated_column_trips_the_check_of_a_query():
    by_slug = Quiz.objects.filter(slug=Placeholder("slug")).order_by()

    assert CompiledQuery(by_slug.values_list("pk", "updated_at")).problems() == []
    assert CompiledQuery(by_slug.values_list("pk", "title")).problems() == [
        "Quiz.title_en is translated"
    ]


def test_each_statement_and_its_orm_twin_in_bench_compiled_give_the_same_rows():
    """bench/compiled.py, whose figures decide which statements the code compiles, asserts
    that each statement's ORM twin gives its rows, and takes the demo quiz with each: run
    small, it fails if the code changed a statement and not its twin."""
    environ = {key: value for key, value in os.environ.items() if not key.startswith("DATABASE_")}
    result = subprocess.run(
        [PYTHON, "bench/compiled.py"],
        cwd=ROOT,
        env=environ | {"CALLS": "50", "REQUEST_ROUNDS": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    for statement in ("lock attempt (answer)", "graded (answer)", "attempt rows", "answer"):
        assert statement in result.stdout
