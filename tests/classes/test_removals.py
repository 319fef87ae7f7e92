"""Undoing an instructor's work: deleting an assignment nobody has started (one with attempts
stays, its attempts never lost), taking an override away, and a guide path with nothing to
assign refused."""

from datetime import timedelta

import pytest
from django.db.models import ProtectedError

from quizzes.classes import services
from quizzes.models import Assignment, AssignmentChange, Attempt, Override
from tests.classes.conftest import make_class_of, make_learner, signed_in
from tests.classes.test_assignments import RULES, assign, start_url
from tests.factories import make_guide, make_quiz, make_staff


@pytest.fixture
def learner(klass):
    ada = make_learner("ada")
    services.class_join(klass=klass, learner=ada)
    return ada


def delete_url(assignment) -> str:
    return f"/en/classes/{assignment.klass_id}/assignments/{assignment.pk}/delete/"


def remove_url(assignment, learner) -> str:
    return (
        f"/en/classes/{assignment.klass_id}/assignments/{assignment.pk}"
        f"/overrides/{learner.pk}/remove/"
    )


def test_an_assignment_nobody_started_is_deleted_once_asked(teacher, klass, quiz, learner):
    assignment = assign(klass, quiz)
    Override.objects.create(assignment=assignment, learner=learner, extra_attempts=1)
    page = teacher.get(f"/en/classes/{klass.pk}/assignments/{assignment.pk}/").content.decode()
    assert f'href="{delete_url(assignment)}"' in page
    asked = teacher.get(delete_url(assignment))
    assert asked.status_code == 200 and "Nobody has started it." in asked.content.decode()
    assert Assignment.objects.filter(pk=assignment.pk).exists()  # Asking deletes nothing.
    response = teacher.post(delete_url(assignment), follow=True)
    assert response.redirect_chain[-1][0] == f"/en/classes/{klass.pk}/"
    assert f"The assignment “{quiz.title}” is deleted." in response.content.decode()
    assert not Assignment.objects.exists() and not Override.objects.exists()
    assert quiz.__class__.objects.filter(pk=quiz.pk).exists()  # The quiz stays.


def test_an_assignment_with_attempts_is_never_deleted(teacher, klass, quiz, learner):
    assignment = assign(klass, quiz)
    signed_in(learner).post(start_url(assignment))
    page = teacher.get(f"/en/classes/{klass.pk}/assignments/{assignment.pk}/").content.decode()
    assert "It has attempts, which are never lost: it can't be deleted." in page
    assert delete_url(assignment) not in page
    for response in (teacher.get(delete_url(assignment)), teacher.post(delete_url(assignment))):
        assert response.status_code == 409
        assert "has 1 attempt, which is never lost: the assignment stays." in (
            response.content.decode()
        )
    assert Assignment.objects.filter(pk=assignment.pk).exists()
    assert Attempt.objects.filter(assignment=assignment).count() == 1


def test_an_attempt_started_since_the_check_still_keeps_its_assignment(klass, quiz, learner):
    """The database refuses the delete (PROTECT): the service says so, nothing goes."""
    assignment = assign(klass, quiz)
    signed_in(learner).post(start_url(assignment))
    with pytest.raises(ProtectedError):  # What the service's check stands in front of.
        Assignment.objects.filter(pk=assignment.pk).delete()
    with pytest.raises(services.AssignmentHasAttempts):
        services.assignment_delete(assignment=assignment)
    assert Attempt.objects.get().assignment_id == assignment.pk


def test_only_the_class_s_instructor_deletes_its_assignments(klass, quiz, learner):
    assignment = assign(klass, quiz)
    other = signed_in(make_staff("other", "Instructors"))
    foreign = assign(make_class_of(make_staff("third", "Instructors"), learners=0), quiz)
    assert other.get(delete_url(assignment)).status_code == 404
    assert other.post(delete_url(assignment)).status_code == 404
    assert signed_in(learner).post(delete_url(assignment)).status_code == 404
    url = f"/en/classes/{klass.pk}/assignments/{foreign.pk}/delete/"  # Not of this class.
    assert signed_in(klass.instructors.get()).post(url).status_code == 404
    assert Assignment.objects.count() == 2


def test_an_override_is_removed_and_the_deadline_follows(teacher, klass, quiz, learner):
    assignment = assign(klass, quiz, time_limit=timedelta(minutes=10))
    url = f"/en/classes/{klass.pk}/assignments/{assignment.pk}/overrides/"
    teacher.post(url, {"learner": learner.pk, "extra_time": "15", "extra_attempts": "1"})
    signed_in(learner).post(start_url(assignment))
    attempt = Attempt.objects.get()
    assert attempt.deadline == attempt.started_at + timedelta(minutes=25)
    page = teacher.get(f"/en/classes/{klass.pk}/assignments/{assignment.pk}/").content.decode()
    assert f'action="{remove_url(assignment, learner)}"' in page
    assert "Remove ada’s override" in page
    assert "+1 attempt, +15 min, given by teacher on " in page
    response = teacher.post(remove_url(assignment, learner), follow=True)
    assert "The override is removed: the assignment&#x27;s rules apply." in (
        response.content.decode()
    )
    assert not Override.objects.exists()
    attempt.refresh_from_db()
    assert attempt.deadline == attempt.started_at + timedelta(minutes=10)
    assert teacher.post(remove_url(assignment, learner)).status_code == 404  # Gone already.
    assert teacher.get(remove_url(assignment, learner)).status_code == 405


def test_another_instructor_can_t_remove_an_override(klass, quiz, learner):
    assignment = assign(klass, quiz)
    Override.objects.create(assignment=assignment, learner=learner, extra_attempts=1)
    other = signed_in(make_staff("other", "Instructors"))
    assert other.post(remove_url(assignment, learner)).status_code == 404
    assert Override.objects.count() == 1


def test_a_guide_path_with_no_published_quiz_is_refused(teacher, klass):
    guide = make_guide(slug="empty")
    make_quiz(slug="draft", guide=guide, published=False)
    response = teacher.post(
        f"/en/classes/{klass.pk}/assignments/new/", RULES | {"target": f"guide:{guide.pk}"}
    )
    assert response.status_code == 400
    assert "This guide path has no published quiz to assign." in response.content.decode()
    assert not Assignment.objects.exists() and not AssignmentChange.objects.exists()


def test_a_removed_learner_s_override_can_still_be_removed(teacher, klass, quiz, learner):
    assignment = assign(klass, quiz)
    Override.objects.create(assignment=assignment, learner=learner, extra_attempts=1)
    services.membership_remove(klass=klass, learner_id=learner.pk)
    assert teacher.post(remove_url(assignment, learner)).status_code == 302
    assert not Override.objects.exists()
