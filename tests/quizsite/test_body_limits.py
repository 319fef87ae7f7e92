"""Bodies over their page's limit are refused by their length, before Django reads any of them;
the proxy's configuration carries the same limits (its tests run it: test_proxy.py)."""

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from quizsite.middleware import body_limit
from quizzes.interchange.importing import MAX_UPLOAD_BYTES

pytestmark = pytest.mark.django_db
GIGABYTE = str(2**30)


def post_claiming(path: str, length: str, **headers):
    """A POST whose header claims `length` bytes of body, with 100 sent: the test client's
    payload raises if anything reads past them, so a 413 here read nothing."""
    client = Client(raise_request_exception=True)
    body = b"--b\r\n" + b"x" * 95
    return client.generic(
        "POST", path, body, "multipart/form-data; boundary=b", CONTENT_LENGTH=length, **headers
    )


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/en/", "larger than this page takes: at most 256.0\xa0KB. Nothing of it was kept."),
        ("/fr/", "dépasse ce que cette page accepte\xa0: au plus 256,0\xa0Kio. Rien n’en a été"),
        ("/admin/quizzes/contentimage/add/", "at most 3.5\xa0MB"),
        ("/admin/quizzes/quiz/import/", "at most 51.0\xa0MB"),
    ],
)
def test_a_body_over_the_limit_is_a_413_page_in_the_pages_language_before_any_is_read(
    path, message
):
    response = post_claiming(path, GIGABYTE)
    assert response.status_code == 413
    assert message in response.content.decode()


def test_a_body_within_the_limit_goes_on_to_the_page():
    assert post_claiming("/en/", "100").status_code == 405  # The page's own answer to a POST.


def test_each_part_of_the_site_has_the_limit_its_forms_need(settings):
    assert body_limit("/en/quizzes/") == body_limit("/healthz") == 256 * 1024
    assert body_limit("/admin/quizzes/contentimage/add/") > settings.CONTENT_IMAGE_MAX_BYTES
    # The import page's takes the largest file an import takes, with its form.
    assert body_limit("/admin/quizzes/quiz/import/") >= MAX_UPLOAD_BYTES + 2**20
    assert body_limit("/admin/quizzes/quiz/import/confirm/") == body_limit(
        "/admin/quizzes/quiz/import/"
    )


def test_the_proxy_configuration_needs_gunicorns_address_and_a_trusted_proxy(
    settings, monkeypatch, capsys
):
    monkeypatch.delenv("GUNICORN_BIND", raising=False)
    monkeypatch.delenv("PROXY_UPSTREAMS", raising=False)
    with pytest.raises(CommandError, match="GUNICORN_BIND"):
        call_command("proxy_config")
    monkeypatch.setenv("GUNICORN_BIND", "unix:/run/quizsite.sock")
    settings.TRUSTED_PROXY_COUNT = 0
    with pytest.raises(CommandError, match="TRUSTED_PROXY_COUNT=1"):
        call_command("proxy_config")
    settings.TRUSTED_PROXY_COUNT = 1
    call_command("proxy_config")
    config = capsys.readouterr().out
    assert "server unix:/run/quizsite.sock max_fails=3 fail_timeout=10s;" in config
    assert "client_max_body_size 262144;" in config
    assert (
        "location ^~ /admin/quizzes/quiz/import/ {\n            client_max_body_size 53477376;"
        in config
    )
    assert "${" not in config


def test_the_proxy_shares_requests_out_between_the_nodes_and_says_when_none_answered(
    settings, monkeypatch, capsys
):
    settings.TRUSTED_PROXY_COUNT = 1
    monkeypatch.setenv("GUNICORN_BIND", "unix:/run/quizsite-1.sock")
    monkeypatch.setenv("PROXY_UPSTREAMS", "10.0.0.1:8000  10.0.0.2:8000")
    call_command("proxy_config")
    config = capsys.readouterr().out
    servers = [
        line.strip() for line in config.splitlines() if line.strip().startswith("server 10.")
    ]
    assert servers == [
        "server 10.0.0.1:8000 max_fails=3 fail_timeout=10s;",
        "server 10.0.0.2:8000 max_fails=3 fail_timeout=10s;",
    ]
    assert "proxy_next_upstream error timeout;" in config
    assert "error_page 502 504 @unavailable;" in config
    # The page in French under /fr/, else in English.
    french = config.index('if ($uri ~ "^/fr/")')
    assert config.index("Le site n’a pas répondu", french) < config.index(
        "The site did not answer", french
    )
    assert '<html lang="fr">' in config and '<html lang="en">' in config
