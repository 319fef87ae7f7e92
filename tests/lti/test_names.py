"""An LMS's account shows the name the platform gave, wherever learners are listed (the
roster, the gradebook, the reports), not its generated username, which stays unique."""

import requests
from django.contrib.auth import get_user_model

from quizzes.lti.models import Context, Identity
from tests.factories import make_quiz
from tests.lti.conftest import launch
from tests.lti.platform import INSTRUCTOR
from tests.lti.test_launch import answer_all

GIVEN = {"given_name": "Grace", "family_name": "Hopper"}


def test_the_roster_gradebook_and_report_list_the_lms_name(platform, live_server):
    quiz = make_quiz(questions=1)
    learner = requests.Session()
    claims = platform.claims(sub="grace", quiz=quiz.slug) | GIVEN
    answer_all(learner, launch(learner, platform, live_server.url, claims), quiz)
    grace = Identity.objects.get(sub="grace").user
    assert grace.username.startswith("grace-hopper.lti")

    teacher = requests.Session()
    claims = platform.claims(sub="teacher", roles=[INSTRUCTOR], quiz=quiz.slug)
    roster = launch(teacher, platform, live_server.url, claims)
    klass = Context.objects.get().klass
    gradebook = teacher.get(live_server.url + f"/en/classes/{klass.pk}/gradebook/")
    report = teacher.get(
        live_server.url + f"/en/reports/quizzes/{quiz.slug}/", params={"class": klass.pk}
    )
    for page in (roster, gradebook, report):
        assert page.status_code == 200, page.url
        assert "Grace Hopper" in page.text, page.url
        assert grace.username not in page.text, page.url


def test_a_name_alone_is_the_accounts_name_and_names_follow_the_lms(platform, live_server):
    quiz = make_quiz(questions=1)
    claims = platform.claims(sub="g", quiz=quiz.slug)
    del claims["given_name"], claims["family_name"]
    launch(requests.Session(), platform, live_server.url, claims | {"name": "Grace B. Hopper"})
    user = Identity.objects.get(sub="g").user
    assert user.get_full_name() == "Grace B. Hopper"
    assert user.username.startswith("grace-b-hopper.lti")

    launch(requests.Session(), platform, live_server.url, claims | GIVEN)
    user.refresh_from_db()
    assert (user.first_name, user.last_name) == ("Grace", "Hopper")
    launch(requests.Session(), platform, live_server.url, claims | {"name": "Rear Adm. Hopper"})
    user.refresh_from_db()
    assert user.get_full_name() == "Rear Adm. Hopper"
    assert get_user_model().objects.count() == 1


def test_two_learners_of_one_name_keep_two_usernames(platform, live_server):
    quiz = make_quiz(questions=1)
    for sub in ("one", "two"):
        claims = platform.claims(sub=sub, quiz=quiz.slug) | GIVEN
        launch(requests.Session(), platform, live_server.url, claims)
    names = get_user_model().objects.values_list("username", flat=True)
    assert len(set(names)) == 2
    assert all(name.startswith("grace-hopper.lti") for name in names)
