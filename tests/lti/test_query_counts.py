"""A launch's queries: as many for a course of 30 learners as for one of 3."""

import pytest
import requests
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from quizzes.lti.models import Platform
from tests.factories import make_quiz
from tests.lti.conftest import form_of
from tests.lti.platform import LmsPlatform


@pytest.fixture
def lms(db, settings):
    settings.SITE_URL = "http://testserver"
    with LmsPlatform() as platform:
        Platform.objects.create(**platform.registration())
        yield platform


def launch_queries(client, lms, sub: str, quiz) -> int:
    """The queries of a launch's POST, the OIDC login before it through the test client
    and the platform's real authorization endpoint."""
    lms.launches[sub] = lms.claims(sub=sub, quiz=quiz.slug)
    login = client.get("/lti/login/", lms.login_params("http://testserver", sub))
    page = requests.get(login["Location"], timeout=5)
    _action, fields = form_of(page.text)
    with CaptureQueriesContext(connection) as queries:
        response = client.post("/lti/launch/", fields)
    assert response.status_code == 302
    return len(queries)


@pytest.mark.parametrize("learners", [3, 30])
def test_a_returning_learners_launch_is_flat_in_the_course_size(lms, learners):
    quiz = make_quiz(questions=1)
    for n in range(learners):
        launch_queries(Client(), lms, f"other-{n}", quiz)
    me = Client()
    first = launch_queries(me, lms, "me", quiz)
    again = launch_queries(me, lms, "me", quiz)
    assert (first, again) == (FIRST_LAUNCH, RETURNING_LAUNCH)


# The returning learner's: the login's state and nonce (read, kept, used: 15 with their
# savepoints), the platform and the tool's key, the quiz, the account, the class, the
# membership, the link (4 with the savepoints), the session, signing in (axes' check and
# log, last_login), whether scores wait, whether the roster is due (the hour's mark, one
# update), the attempt in progress as the learner's Start
# finds it (6: the membership, overdue attempts submitted, the attempt read, with their
# savepoints), the session saved (3). A first launch makes the account, membership and
# attempt besides.
FIRST_LAUNCH = 52
RETURNING_LAUNCH = 41
