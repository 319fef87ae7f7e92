"""Over HTTPS, an LTI session's cookies are SameSite=None; Secure: the LMS's iframe is
another site, and Lax cookies would not come back from it."""

import pytest
import requests
from django.test import Client

from quizzes.lti.models import Platform
from tests.factories import make_quiz
from tests.lti.conftest import form_of
from tests.lti.platform import LmsPlatform


@pytest.fixture
def lms(db, settings):
    settings.SITE_URL = "https://testserver"
    with LmsPlatform() as platform:
        Platform.objects.create(**platform.registration())
        yield platform


def test_an_https_launch_sets_cross_site_cookies(lms):
    quiz = make_quiz(questions=1)
    client = Client()
    lms.launches["s"] = lms.claims(sub="s", quiz=quiz.slug)
    login = client.get("/lti/login/", lms.login_params("https://testserver", "s"), secure=True)
    _action, fields = form_of(requests.get(login["Location"], timeout=5).text)
    response = client.post("/lti/launch/", fields, secure=True)
    assert response.status_code == 302
    cookie = response.cookies["sessionid"]
    assert cookie["samesite"] == "None" and cookie["secure"] is True

    page = client.get(response["Location"], secure=True)
    assert f"frame-ancestors {lms.url}" in page["Content-Security-Policy"]
    assert "X-Frame-Options" not in page

    plain = Client().get("/en/", secure=True)
    assert "frame-ancestors 'none'" in plain["Content-Security-Policy"]
    assert plain["X-Frame-Options"] == "DENY"
