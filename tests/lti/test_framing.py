"""Over HTTPS, an LTI session's cookies are SameSite=None; Secure; Partitioned: the LMS's
iframe is another site, Lax cookies would not come back from it, and browsers that block
third-party cookies keep a partitioned one (CHIPS) in the LMS's jar."""

import pytest
import requests
from django.contrib.auth import get_user_model
from django.test import Client

from quizzes.lti.models import Platform
from tests.factories import make_quiz
from tests.lti.conftest import form_of
from tests.lti.platform import INSTRUCTOR, LmsPlatform


@pytest.fixture
def lms(db, settings):
    settings.SITE_URL = "https://testserver"
    with LmsPlatform() as platform:
        Platform.objects.create(**platform.registration())
        yield platform


def https_launch(client: Client, lms: LmsPlatform, claims: dict):
    lms.launches[claims["sub"]] = claims
    login = client.get(
        "/lti/login/", lms.login_params("https://testserver", claims["sub"]), secure=True
    )
    _action, fields = form_of(requests.get(login["Location"], timeout=5).text)
    return client.post("/lti/launch/", fields, secure=True)


def written(response, name: str) -> str:
    """The Set-Cookie header the server writes for a cookie."""
    return response.cookies[name].output(header="").strip()


def test_an_https_launch_sets_cross_site_partitioned_cookies(lms):
    quiz = make_quiz(questions=1)
    client = Client()
    response = https_launch(client, lms, lms.claims(sub="s", quiz=quiz.slug))
    assert response.status_code == 302
    cookie = response.cookies["sessionid"]
    assert cookie["samesite"] == "None" and cookie["secure"] is True
    assert written(response, "sessionid").endswith("; SameSite=None; Secure; Partitioned")

    page = client.get(response["Location"], secure=True)  # The question's form: a CSRF token.
    assert f"frame-ancestors {lms.url}" in page["Content-Security-Policy"]
    assert "X-Frame-Options" not in page
    assert written(page, "csrftoken").endswith("; SameSite=None; Secure; Partitioned")

    plain = Client().get("/en/", secure=True)
    assert "frame-ancestors 'none'" in plain["Content-Security-Policy"]
    assert plain["X-Frame-Options"] == "DENY"


def test_the_messages_of_an_lti_session_come_back_in_the_frame(lms):
    """An instructor's launch of a link to no quiz says why on the class's page, through
    the messages' cookie, which is the session's kind too."""
    client = Client()
    claims = lms.claims(sub="t", roles=[INSTRUCTOR])
    response = https_launch(client, lms, claims)
    assert written(response, "messages").endswith("; SameSite=None; Secure; Partitioned")
    page = client.get(response["Location"], secure=True)
    assert "links to no quiz of the site" in page.content.decode()
    # Read, the message's cookie is deleted in the same partition.
    assert written(page, "messages").endswith("; SameSite=None; Secure; Partitioned")


def test_another_sessions_cookies_are_not_partitioned(lms):
    get_user_model().objects.create_user("grace", password="a long passphrase")
    client = Client()
    form = client.get("/en/accounts/login/", secure=True)
    signed_in = client.post(
        "/en/accounts/login/",
        {"username": "grace", "password": "a long passphrase"},
        secure=True,
    )
    assert signed_in.status_code == 302
    for page, name in ((form, "csrftoken"), (signed_in, "sessionid")):
        assert "Partitioned" not in written(page, name)
        assert page.cookies[name]["samesite"] == "Lax"
