"""Names and Role Provisioning on launch: an instructor's launch, and a learner's once an
hour, queue the reading of the course's roster from the platform on loopback; the task
worker fills the class, and who left the course leaves the class with their attempts kept."""

from datetime import timedelta

import requests
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from quizzes.lti.models import Context, Identity
from quizzes.lti.tasks import roster_bring
from quizzes.models import Attempt, Membership
from tests.factories import make_quiz
from tests.lti.conftest import launch
from tests.lti.platform import INSTRUCTOR, LEARNER
from tests.lti.test_launch import answer_all, run_tasks


def member(sub: str, role: str = LEARNER, status: str = "Active", **names) -> dict:
    return {"user_id": sub, "roles": [role], "status": status, **names}


def queued() -> int:
    return DBTaskResult.objects.filter(task_path=roster_bring.module_path).count()


def launched(platform, live_server, sub: str, quiz, **more) -> requests.Response:
    claims = platform.claims(sub=sub, quiz=quiz.slug, **more)
    return launch(requests.Session(), platform, live_server.url, claims)


def learners(klass) -> list[str]:
    subs = Membership.objects.filter(klass=klass).values_list("learner__lti_identity__sub")
    return sorted(sub for (sub,) in subs)


def test_launches_bring_the_roster_and_who_left_the_course_leaves_the_class(platform, live_server):
    quiz = make_quiz(questions=1)
    platform.members = [
        member("teacher", INSTRUCTOR),
        member("m-1", given_name="Grace", family_name="Hopper"),
        member("m-2"),
    ]
    # A learner's launch, the course's first: the roster is read once the worker runs.
    session = requests.Session()
    page = launch(session, platform, live_server.url, platform.claims(sub="m-2", quiz=quiz.slug))
    answer_all(session, page, quiz)
    assert queued() == 1
    klass = Context.objects.get().klass
    assert learners(klass) == ["m-2"]
    run_tasks()
    assert learners(klass) == ["m-1", "m-2"]
    assert list(klass.instructors.values_list("lti_identity__sub", flat=True)) == ["teacher"]
    assert Identity.objects.get(sub="m-1").user.get_full_name() == "Grace Hopper"

    # m-2 leaves the course, m-1 is made inactive there, m-3 joins it.
    platform.members = [
        member("teacher", INSTRUCTOR),
        member("m-1", status="Inactive"),
        member("m-3"),
    ]
    # Another learner's launch within the hour asks for nothing.
    launched(platform, live_server, "m-4", quiz)
    assert queued() == 1
    # An instructor's does.
    assert launched(platform, live_server, "teacher", quiz, roles=[INSTRUCTOR]).status_code == 200
    assert queued() == 2
    run_tasks()
    assert learners(klass) == ["m-3"]  # m-4, launched but not listed, left too.
    assert Attempt.objects.filter(user__lti_identity__sub="m-2").count() == 1

    # An hour on, a learner's launch asks again.
    Context.objects.update(roster_asked_at=timezone.now() - timedelta(minutes=61))
    launched(platform, live_server, "m-3", quiz)
    assert queued() == 3


def test_a_roster_without_active_members_changes_nothing(platform, live_server):
    quiz = make_quiz(questions=1)
    platform.members = [member("l", status="Inactive")]
    launched(platform, live_server, "l", quiz)
    run_tasks()
    assert learners(Context.objects.get().klass) == ["l"]


def test_a_platform_that_refuses_the_roster_changes_nothing(platform, live_server):
    quiz = make_quiz(questions=1)
    platform.members = [member("teacher", INSTRUCTOR)]
    platform.refuse_roster = True
    launched(platform, live_server, "l", quiz)
    run_tasks()
    [result] = DBTaskResult.objects.filter(task_path=roster_bring.module_path)
    assert result.status == "SUCCESSFUL" and result.return_value is None
    assert learners(Context.objects.get().klass) == ["l"]
