"""The allowed origins: checked and written as browsers compare them, in the admin too."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from quizzes.models import EmbedOrigin, origin_normalised


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("https://guide.example.org", "https://guide.example.org"),
        ("  HTTPS://Guide.Example.ORG/ ", "https://guide.example.org"),
        ("https://guide.example.org:443", "https://guide.example.org"),
        ("http://localhost:80", "http://localhost"),
        ("http://localhost:8001", "http://localhost:8001"),
        ("http://127.0.0.1:8001/", "http://127.0.0.1:8001"),
        ("http://[::1]:8001", "http://[::1]:8001"),
        ("https://bücher.example", "https://xn--bcher-kva.example"),
    ],
)
def test_an_origin_is_written_as_browsers_compare_it(typed, kept):
    assert origin_normalised(typed) == kept


@pytest.mark.parametrize(
    "typed",
    [
        "",
        "guide.example.org",
        "ftp://guide.example.org",
        "javascript:alert(1)",
        "https://guide.example.org/docs/",
        "https://guide.example.org?x=1",
        "https://guide.example.org#top",
        "https://*.example.org",
        "https://user:pw@guide.example.org",
        "https://guide.example.org:99999",
        "https://guide.example.org:-1",
        "https://[::1",
        "https://guide example.org",
        "https://" + "a" * 400 + ".org",
        "'none'",
        "https://",
    ],
)
def test_anything_else_is_refused(typed):
    with pytest.raises(ValidationError):
        origin_normalised(typed)


@pytest.mark.parametrize("who", ["admin_client", "editor_client"])
def test_the_admin_lists_and_adds_origins(request, who, quiz):
    """A superuser, and an editor (migration 0026 gives the Editors group the model)."""
    admin_client = request.getfixturevalue(who)
    url = reverse("admin:quizzes_embedorigin_add")
    response = admin_client.post(url, {"origin": "HTTPS://Guide.Example.org/", "note": "Ours"})
    assert response.status_code == 302
    assert EmbedOrigin.objects.get().origin == "https://guide.example.org"
    again = admin_client.post(url, {"origin": "https://guide.example.org:443"})
    assert again.status_code == 200 and EmbedOrigin.objects.count() == 1
    refused = admin_client.post(url, {"origin": "https://guide.example.org/docs/"})
    assert refused.status_code == 200 and "Enter an origin" in refused.content.decode()
    listing = admin_client.get(reverse("admin:quizzes_embedorigin_changelist"))
    assert "https://guide.example.org" in listing.content.decode()


@pytest.mark.parametrize("who", ["admin_client", "editor_client"])
def test_the_quiz_page_shows_its_own_origins(request, who, quiz):
    admin_client = request.getfixturevalue(who)
    EmbedOrigin.objects.create(origin="https://one.example.org", quiz=quiz)
    page = admin_client.get(reverse("admin:quizzes_quiz_change", args=[quiz.pk]))
    html = page.content.decode()
    assert page.status_code == 200 and "https://one.example.org" in html
    assert 'name="embed_origins-TOTAL_FORMS"' in html
