"""The class list and the roster cost the same queries whatever the number of classes and
learners; so does My progress whatever the number of classes a learner is in."""

import pytest

from quizzes.classes.services import class_join
from tests.classes.conftest import make_class_of, make_learner, signed_in
from tests.factories import PROGRESS_PAGE

SIGNED_IN = 4  # The session, the user, and their permissions (the header's links).
CLASS_LIST = SIGNED_IN + 1  # The classes with their learner counts.
ROSTER = SIGNED_IN + 2  # The class (if the user teaches it), its learners.
LEARNER_CLASSES = 1  # On My progress, for a signed-in learner.


@pytest.mark.parametrize("classes", [1, 12])
def test_the_class_list(teacher, instructor, classes, django_assert_num_queries):
    for n in range(classes):
        make_class_of(instructor, learners=n % 4, name=f"Class {n}")
    with django_assert_num_queries(CLASS_LIST):
        response = teacher.get("/en/classes/")
    assert response.status_code == 200
    assert response.content.decode().count('<th scope="row" class="class-name">') == classes


@pytest.mark.parametrize("learners", [1, 30])
def test_the_roster(teacher, instructor, learners, django_assert_num_queries):
    klass = make_class_of(instructor, learners=learners)
    with django_assert_num_queries(ROSTER):
        response = teacher.get(f"/en/classes/{klass.pk}/")
    assert response.status_code == 200
    assert response.content.decode().count("/remove/") == learners


@pytest.mark.parametrize("classes", [1, 10])
def test_my_progress_with_classes(quiz, instructor, classes, django_assert_num_queries):
    learner = make_learner("ada")
    for n in range(classes):
        class_join(klass=make_class_of(instructor, learners=0, name=f"C{n}"), learner=learner)
    client = signed_in(learner)
    with django_assert_num_queries(SIGNED_IN + PROGRESS_PAGE + LEARNER_CLASSES):
        response = client.get("/en/progress/")
    assert response.content.decode().count('class="class-name"') == classes
