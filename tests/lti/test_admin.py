"""Registering an LMS in the admin, and what the admin shows to paste into it."""

from django.urls import reverse

from quizzes.lti.models import Platform, ToolKey


def test_the_admin_registers_a_platform_and_shows_the_tool_addresses(admin_client, settings):
    settings.SITE_URL = "https://quiz.example.com"
    add = reverse("admin:lti_platform_add")
    page = admin_client.get(add)
    text = page.content.decode()
    for path in ("/lti/login/", "/lti/launch/", "/lti/jwks/"):
        assert f"https://quiz.example.com{path}" in text

    response = admin_client.post(
        add,
        {
            "name": "Moodle",
            "is_active": "on",
            "issuer": "https://moodle.example.com",
            "client_id": "abc123",
            "auth_login_url": "https://moodle.example.com/mod/lti/auth.php",
            "token_url": "https://moodle.example.com/mod/lti/token.php",
            "keyset_url": "https://moodle.example.com/mod/lti/certs.php",
            "deployment_ids": "1\n 2 \n",
        },
    )
    assert response.status_code == 302
    assert Platform.objects.get().deployments() == ["1", "2"]


def test_the_tool_key_is_made_once_and_kept(client, db):
    first = client.get("/lti/jwks/").json()
    assert client.get("/lti/jwks/").json() == first
    [key] = first["keys"]
    assert key["kid"] == ToolKey.objects.get().kid and "d" not in key


def test_the_private_key_is_not_shown_in_the_admin(admin_client):
    key = ToolKey.objects.current()
    page = admin_client.get(reverse("admin:lti_toolkey_change", args=[key.pk]))
    assert page.status_code == 200
    assert "PRIVATE KEY" not in page.content.decode()
    assert "PUBLIC KEY" in page.content.decode()
