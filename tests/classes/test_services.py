"""Classes as records: their codes and links, joining, leaving; nothing recorded is lost."""

import threading

import pytest
from django.db import IntegrityError, connection, transaction

from quizzes.classes import services
from quizzes.classes.services import (
    JoiningClosed,
    class_create,
    class_join,
    class_joining_set,
    membership_remove,
)
from quizzes.models import (
    CLASS_CODE_ALPHABET,
    Attempt,
    Class,
    Membership,
    class_code_shown,
    class_code_typed,
)
from tests.classes.conftest import make_learner
from tests.factories import answer, choice_of, make_quiz, start


@pytest.fixture
def quiz(db):
    return make_quiz(questions=2)


def test_a_new_class_has_a_code_to_read_aloud_and_an_unguessable_link(klass, instructor):
    assert len(klass.code) == 8 and set(klass.code) <= set(CLASS_CODE_ALPHABET)
    assert not set(klass.code) & set("01ILOUV")
    assert klass.code_shown == f"{klass.code[:4]}-{klass.code[4:]}"
    assert len(klass.token) >= 43
    assert klass.joining_open
    assert list(klass.instructors.all()) == [instructor]
    assert klass.join_url() == f"/en/join/{klass.token}/"


def test_codes_are_typed_in_any_case_with_or_without_dash_or_spaces():
    assert class_code_typed(" k7qx-29mf ") == "K7QX29MF"
    assert class_code_typed("K7QX 29MF") == "K7QX29MF"
    assert class_code_shown("K7QX29MF") == "K7QX-29MF"


def test_a_code_already_taken_is_drawn_again(klass, instructor, monkeypatch):
    draws = iter([klass.code, klass.code, "ABCD2345"])
    monkeypatch.setattr(services, "new_class_code", lambda: next(draws))
    other = class_create(name="Another", instructor=instructor)
    assert other.code == "ABCD2345"
    assert Class.objects.count() == 2


def test_joining_twice_makes_one_membership(klass):
    learner = make_learner("ada")
    assert class_join(klass=klass, learner=learner)[1] is True
    assert class_join(klass=klass, learner=learner)[1] is False
    assert Membership.objects.filter(klass=klass, learner=learner).count() == 1


def test_a_closed_class_takes_nobody_new_but_keeps_its_learners(klass):
    member, newcomer = make_learner("ada"), make_learner("bob")
    class_join(klass=klass, learner=member)
    class_joining_set(klass=klass, joining_open=False)
    with pytest.raises(JoiningClosed):
        class_join(klass=klass, learner=newcomer)
    assert class_join(klass=klass, learner=member)[1] is False  # Harmless, closed or not.
    assert list(klass.memberships.values_list("learner__username", flat=True)) == ["ada"]


def test_a_removed_learner_keeps_their_attempts_and_may_join_again_while_open(klass, quiz, client):
    learner = make_learner("ada")
    client.force_login(learner)
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    class_join(klass=klass, learner=learner)
    assert membership_remove(klass=klass, learner_id=learner.pk) is True
    assert not Membership.objects.filter(klass=klass).exists()
    assert Attempt.objects.get(pk=attempt.pk).answers.count() == 1
    assert membership_remove(klass=klass, learner_id=learner.pk) is False
    class_joining_set(klass=klass, joining_open=False)
    with pytest.raises(JoiningClosed):
        class_join(klass=klass, learner=learner)
    class_joining_set(klass=klass, joining_open=True)
    assert class_join(klass=klass, learner=learner)[1] is True


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="requests side by side: the PostgreSQL run (SQLite's in-memory test database locks)",
)
@pytest.mark.django_db(transaction=True)
def test_parallel_joins_make_one_membership_and_no_error():
    # A plain account: a transactional test's database is emptied by the one before it,
    # groups the migrations made included.
    klass = class_create(name="Racing", instructor=make_learner("teacher"))
    learner = make_learner("ada")
    barrier, errors, joined = threading.Barrier(6), [], []

    def join():
        try:
            barrier.wait()
            joined.append(class_join(klass=klass, learner=learner)[1])
        except Exception as error:  # noqa: BLE001 (reported to the test)
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=join) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(joined) == [False] * 5 + [True]
    assert Membership.objects.filter(klass=klass, learner=learner).count() == 1


def test_the_database_refuses_a_second_membership(klass):
    learner = make_learner("ada")
    Membership.objects.create(klass=klass, learner=learner)
    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.create(klass=klass, learner=learner)


def test_instructors_may_make_classes_editors_may_not(instructor, editor):
    assert instructor.has_perm("quizzes.add_class")
    assert not editor.has_perm("quizzes.add_class")
