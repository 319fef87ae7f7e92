"""A strict Content-Security-Policy and a Permissions-Policy on every page, the admin's too."""

import pytest
from django.conf import settings

from tests.factories import make_quiz

pytestmark = pytest.mark.django_db

POLICY = {
    "default-src": {"'self'"},
    "script-src": {"'self'"},
    "style-src": {"'self'"},
    "img-src": {"'self'"},
    "object-src": {"'none'"},
    "base-uri": {"'none'"},
    "frame-ancestors": {"'none'"},
    "form-action": {"'self'"},
}


def directives(header: str) -> dict[str, set[str]]:
    parts = [part.split() for part in header.split(";") if part.strip()]
    return {name: set(sources) for name, *sources in parts}


def assert_headers(response) -> None:
    assert "unsafe-inline" not in response["Content-Security-Policy"]
    assert directives(response["Content-Security-Policy"]) == POLICY
    features = dict(item.split("=") for item in response["Permissions-Policy"].split(", "))
    for feature in ("camera", "microphone", "geolocation", "payment", "usb", "browsing-topics"):
        assert features[feature] == "()"


def test_a_learner_page_has_the_policies(client):
    make_quiz(slug="dp-quiz")
    for url in ("/en/", "/fr/quizzes/dp-quiz/", "/en/accounts/login/"):
        response = client.get(url)
        assert response.status_code == 200
        assert_headers(response)


def test_the_admin_has_the_policies(admin_client):
    quiz = make_quiz(slug="dp-quiz")
    for url in ("/admin/", f"/admin/quizzes/quiz/{quiz.pk}/change/", "/admin/login/"):
        response = admin_client.get(url)
        assert response.status_code in {200, 302}
        assert_headers(response)


def test_error_pages_have_the_policies(client):
    assert_headers(client.get("/en/no-such-page/"))
    assert client.get("/en/no-such-page/").status_code == 404
    response = client.get("/fr/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert_headers(response)


def test_one_policy_in_the_settings_for_django_5_and_6():
    assert {name: set(sources) for name, sources in settings_policy().items()} == POLICY


def settings_policy() -> dict[str, list[str]]:
    if hasattr(settings, "SECURE_CSP"):
        return settings.SECURE_CSP
    return settings.CONTENT_SECURITY_POLICY["DIRECTIVES"]
