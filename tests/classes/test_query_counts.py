"""The class list, the roster and its assignments, an assignment's page and the page that
makes one cost the same queries whatever the number of classes, learners, assignments,
overrides and changes; so does My progress whatever the number of classes and assignments
a learner has, and an assignment's question page whatever its questions."""

from datetime import timedelta

import pytest
from django.utils import timezone

from quizzes.classes.services import class_join
from quizzes.models import Assignment, AssignmentChange, Attempt, Override
from tests.classes.conftest import make_class_of, make_learner, signed_in
from tests.factories import PROGRESS_PAGE, make_guide, make_quiz, question_url

SIGNED_IN = 4  # The session, the user, and their permissions (the header's links).
CLASS_LIST = SIGNED_IN + 1  # The classes with their learner counts.
ROSTER = SIGNED_IN + 3  # The class (if the user teaches it), its assignments, its learners.
LEARNER_CLASSES = 1  # On My progress, for a signed-in learner.
# On My progress, for a learner in a class: their overdue attempts submitted, their
# assignments with their attempts.
LEARNER_ASSIGNMENTS = 2
# The class, the assignment with its attempt count, the roster, the history, the overrides.
ASSIGNMENT_PAGE = SIGNED_IN + 5
NEW_ASSIGNMENT_PAGE = SIGNED_IN + 3  # The class, the guide paths, the quizzes.
# The attempt with its answers and its assignment's review rules in one query, as a
# self-study attempt's question page (tests/learning/test_query_counts.py: QUESTION_PAGE).
ASSIGNMENT_QUESTION_PAGE = SIGNED_IN + 1


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
    client.get("/en/progress/")  # The first visit saves the session once (the header's link).
    with django_assert_num_queries(
        SIGNED_IN + PROGRESS_PAGE + LEARNER_CLASSES + LEARNER_ASSIGNMENTS
    ):
        response = client.get("/en/progress/")
    assert response.content.decode().count('class="class-name"') == classes


@pytest.mark.parametrize("assignments", [1, 10])
def test_my_progress_with_assignments(quiz, instructor, assignments, django_assert_num_queries):
    learner = make_learner("ada")
    klass = make_class_of(instructor, learners=0)
    class_join(klass=klass, learner=learner)
    client = signed_in(learner)
    for n in range(assignments):
        assignment = Assignment.objects.create(
            klass=klass, quiz=quiz, time_limit=timedelta(minutes=5), attempt_limit=n + 1
        )
        client.post(f"/en/assignments/{assignment.pk}/start/")
        Override.objects.create(assignment=assignment, learner=learner, extra_attempts=1)
    with django_assert_num_queries(
        SIGNED_IN + PROGRESS_PAGE + LEARNER_CLASSES + LEARNER_ASSIGNMENTS
    ):
        response = client.get("/en/progress/")
    assert response.content.decode().count('class="assignment-item') == assignments


@pytest.mark.parametrize("rows", [1, 15])
def test_the_roster_with_assignments(teacher, instructor, quiz, rows, django_assert_num_queries):
    klass = make_class_of(instructor, learners=rows)
    for _n in range(rows):
        Assignment.objects.create(klass=klass, quiz=quiz)
    with django_assert_num_queries(ROSTER):
        response = teacher.get(f"/en/classes/{klass.pk}/")
    assert response.content.decode().count('class="assignment-row"') == rows


@pytest.mark.parametrize("rows", [1, 12])
def test_an_assignment_s_page(teacher, instructor, quiz, rows, django_assert_num_queries):
    klass = make_class_of(instructor, learners=rows)
    assignment = Assignment.objects.create(klass=klass, quiz=quiz)
    for membership in klass.memberships.all():
        Override.objects.create(
            assignment=assignment, learner=membership.learner, extra_attempts=1, given_by=instructor
        )
        AssignmentChange.objects.create(
            assignment=assignment,
            changed_by=instructor,
            field="grading",
            before="highest",
            after="last",
        )
    with django_assert_num_queries(ASSIGNMENT_PAGE):
        response = teacher.get(f"/en/classes/{klass.pk}/assignments/{assignment.pk}/")
    page = response.content.decode()
    assert page.count('class="override-row"') == rows == page.count('class="change-row"')


@pytest.mark.parametrize("quizzes", [1, 12])
def test_the_new_assignment_page(teacher, klass, quizzes, django_assert_num_queries):
    make_guide(slug="other")
    for n in range(quizzes):
        make_quiz(slug=f"quiz-{n}", questions=1)
    with django_assert_num_queries(NEW_ASSIGNMENT_PAGE):
        response = teacher.get(f"/en/classes/{klass.pk}/assignments/new/")
    assert response.content.decode().count('value="quiz:') == quizzes


@pytest.mark.parametrize("questions", [2, 20])
def test_an_assignment_s_question_page(instructor, questions, django_assert_num_queries):
    quiz = make_quiz(slug=f"q{questions}", questions=questions)
    klass = make_class_of(instructor, learners=0)
    learner = make_learner("ada")
    class_join(klass=klass, learner=learner)
    assignment = Assignment.objects.create(
        klass=klass, quiz=quiz, closes_at=timezone.now() + timedelta(days=1)
    )
    client = signed_in(learner)
    client.post(f"/en/assignments/{assignment.pk}/start/")
    attempt = Attempt.objects.get(assignment=assignment)
    client.get(question_url(attempt, 1))  # The kept content, read once.
    with django_assert_num_queries(ASSIGNMENT_QUESTION_PAGE):
        response = client.get(question_url(attempt, 1))
    assert 'id="countdown"' in response.content.decode()
