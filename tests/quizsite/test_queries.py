"""CompiledQuery (quizsite/queries.py): a queryset's SQL compiled once, run with new values."""

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.db.models.sql.compiler import SQLCompiler
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from quizsite.queries import CompiledInsert, CompiledQuery, Placeholder
from quizzes.models import Answer, AnswerChoice, Attempt
from tests.factories import make_quiz

COLUMNS = (
    "id",
    "public_id",
    "user_id",
    "learner_key",
    "started_at",
    "completed_at",
    "score",
    "is_first",
    "quiz__updated_at",
    "quiz__slug",
)


@pytest.fixture
def attempts(db) -> list[Attempt]:
    quiz = make_quiz(questions=2)
    learner = User.objects.create_user("ada")
    return [
        Attempt.objects.create(quiz=quiz, learner_key="k1", language="en", is_first=True),
        Attempt.objects.create(
            quiz=quiz,
            user=learner,
            language="fr",
            completed_at=timezone.now(),
            score=2,
            max_score=2,
        ),
    ]


def test_rows_are_those_of_the_queryset_itself(attempts):
    rows = Attempt.objects.order_by().values_list(*COLUMNS)
    compiled = CompiledQuery(rows.filter(public_id=Placeholder("public_id")))

    for attempt in attempts:
        got = compiled(public_id=attempt.public_id)
        assert got == list(rows.filter(public_id=attempt.public_id))
        ((_id, public_id, *_, completed_at, _score, _first, updated_at, _slug),) = got
        assert public_id == attempt.public_id  # A UUID and datetimes, not the database's text.
        assert updated_at.tzinfo is not None
        assert completed_at == attempt.completed_at


def test_a_foreign_key_takes_the_primary_key_and_none_matches_nothing(attempts):
    compiled = CompiledQuery(
        Attempt.objects.filter(user=Placeholder("user"), learner_key=Placeholder("learner_key"))
        .order_by()
        .values_list("public_id")
    )
    signed_in = attempts[1]

    assert compiled(user=signed_in.user_id, learner_key="") == [(signed_in.public_id,)]
    assert compiled(user=signed_in.user_id, learner_key="k1") == []


def test_compiled_once_per_connection_then_only_run(attempts, monkeypatch):
    compiled = CompiledQuery(
        Attempt.objects.filter(public_id=Placeholder("public_id")).values_list("language")
    )
    compiles = []
    as_sql = SQLCompiler.as_sql
    monkeypatch.setattr(
        SQLCompiler, "as_sql", lambda self, *a, **k: compiles.append(1) or as_sql(self, *a, **k)
    )

    with CaptureQueriesContext(connection) as queries:
        languages = [compiled(public_id=attempt.public_id) for attempt in attempts * 2]

    assert languages == [[("en",)], [("fr",)]] * 2
    assert len(compiles) == 1
    assert len(queries) == 4
    assert len({query["sql"] for query in queries}) == 2  # The attempt ids differ, and only they.


def test_an_insert_returns_the_new_rows_key_and_writes_it_as_the_orm_would(attempts):
    insert = CompiledInsert(
        Answer, "attempt", "question", "choice", "is_correct", "answered_at", returning_pk=True
    )
    attempt = attempts[0]
    questions = list(attempt.quiz.questions.order_by("position"))
    now = timezone.now()
    keys = [
        insert(
            {
                "attempt": attempt.pk,
                "question": question.pk,
                "choice": None,
                "is_correct": number == 1,
                "answered_at": now,
            }
        )
        for number, question in enumerate(questions, 1)
    ]
    rows = Answer.objects.filter(pk__in=keys).order_by("pk")
    assert [(a.pk, a.question_id, a.is_correct, a.answered_at) for a in rows] == [
        (keys[0], questions[0].pk, True, now),
        (keys[1], questions[1].pk, False, now),
    ]
    with pytest.raises(ValueError):
        insert({}, {})


def test_an_insert_of_several_rows_is_one_statement(attempts):
    attempt = attempts[0]
    question = attempt.quiz.questions.first()
    answer = Answer.objects.create(attempt=attempt, question=question, is_correct=False)
    choices = list(question.choices.values_list("pk", flat=True))
    insert = CompiledInsert(AnswerChoice, "answer", "choice")
    with CaptureQueriesContext(connection) as queries:
        insert(*({"answer": answer.pk, "choice": pk} for pk in choices))
    assert len(queries) == 1
    assert sorted(answer.picks.values_list("choice", flat=True)) == sorted(choices)
