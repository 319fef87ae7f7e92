import re

import pytest
import requests

from quizzes.lti.models import Platform
from tests.lti.platform import LmsPlatform


@pytest.fixture
def platform(transactional_db, live_server, settings):
    """The test LMS on loopback, registered with the site that the live server runs."""
    settings.SITE_URL = live_server.url
    with LmsPlatform() as lms:
        lms.tool_jwks_url = live_server.url + "/lti/jwks/"
        lms.record = Platform.objects.create(**lms.registration())
        yield lms


def form_of(page: str) -> tuple[str, dict]:
    """A page's last form (after the header's): where it posts, and its hidden fields."""
    action = re.findall(r'<form[^>]*action="([^"]*)"', page)[-1]
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
    return action.replace("&amp;", "&"), fields


def login(session: requests.Session, lms: LmsPlatform, tool_url: str, claims: dict) -> dict:
    """The OIDC login, as a browser follows it: the launch form the LMS would post."""
    hint = claims["sub"]
    lms.launches[hint] = claims
    page = session.get(tool_url + "/lti/login/", params=lms.login_params(tool_url, hint))
    assert page.status_code == 200, page.text
    action, fields = form_of(page.text)
    assert action == tool_url + "/lti/launch/"
    return fields


def launch(session, lms, tool_url, claims) -> requests.Response:
    fields = login(session, lms, tool_url, claims)
    return session.post(tool_url + "/lti/launch/", data=fields)
