"""The learner pages' reads: the compiled attempt query returns what its plain ORM twin does."""

from uuid import uuid4

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from quizzes.learning.selectors import Learner, attempt_for_learner, attempt_for_learner_orm
from quizzes.learning.services import attempt_start
from tests.factories import answer, choice_of, make_quiz, start

ANONYMOUS = Learner(user_id=None, key="k" * 32)


@pytest.fixture
def answered(client, quiz):
    """An anonymous attempt with question 1 right and question 2 wrong."""
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    answer(client, attempt, 2, choice_of(quiz, 2, correct=False))
    return attempt


def _same(compiled, orm) -> None:
    assert compiled.attempt.pk == orm.attempt.pk
    for field in ("public_id", "quiz_id", "user_id", "learner_key", "completed_at", "score"):
        assert getattr(compiled.attempt, field) == getattr(orm.attempt, field)
    assert compiled.quiz is orm.quiz  # The same kept content.
    assert compiled.steps == orm.steps


def test_compiled_and_orm_reads_agree_for_an_anonymous_learner(answered):
    learner = Learner(user_id=None, key=answered.learner_key)
    compiled = attempt_for_learner(public_id=answered.public_id, learner=learner)
    orm = attempt_for_learner_orm(public_id=answered.public_id, learner=learner)
    _same(compiled, orm)
    assert [step.recorded is not None for step in compiled.steps[:3]] == [True, True, False]
    assert compiled.steps[0].recorded.is_correct and not compiled.steps[1].recorded.is_correct
    assert compiled.first_open == 3 and compiled.answered_count == 2


def test_compiled_and_orm_reads_agree_for_a_signed_in_learner(quiz):
    user = User.objects.create_user("ada")
    attempt = attempt_start(quiz=quiz, user=user)
    learner = Learner(user_id=user.pk, key=None)
    _same(
        attempt_for_learner(public_id=attempt.public_id, learner=learner),
        attempt_for_learner_orm(public_id=attempt.public_id, learner=learner),
    )


@pytest.mark.parametrize("read", [attempt_for_learner, attempt_for_learner_orm])
def test_another_learners_or_no_attempt_is_none(read, answered):
    assert read(public_id=answered.public_id, learner=ANONYMOUS) is None
    assert read(public_id=uuid4(), learner=Learner(None, answered.learner_key)) is None
    assert read(public_id=answered.public_id, learner=Learner(None, None)) is None


def test_the_compiled_read_is_one_query(answered):
    learner = Learner(user_id=None, key=answered.learner_key)
    attempt_for_learner(public_id=answered.public_id, learner=learner)  # Keeps the content.
    with CaptureQueriesContext(connection) as queries:
        attempt_for_learner(public_id=answered.public_id, learner=learner)
    assert len(queries) == 1


def test_the_attempt_read_does_not_grow_with_the_quiz(client, db):
    quiz = make_quiz(slug="long", questions=30)
    attempt = start(client, quiz)
    learner = Learner(user_id=None, key=attempt.learner_key)
    attempt_for_learner(public_id=attempt.public_id, learner=learner)
    with CaptureQueriesContext(connection) as queries:
        found = attempt_for_learner(public_id=attempt.public_id, learner=learner)
    assert len(found.steps) == 30 and len(queries) == 1
