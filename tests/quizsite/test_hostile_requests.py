"""Requests anyone can send get a 4xx with the site's page in the page's language, never a 500."""

import pytest
from django.middleware.csrf import get_token
from django.test import Client, RequestFactory

from tests.factories import make_quiz, make_staff

pytestmark = pytest.mark.django_db

ENGLISH_400 = "The site could not understand this request"
FRENCH_400 = "Le site n’a pas compris cette requête"


def site_client() -> Client:
    """A client that shows the 500 page instead of raising, and checks CSRF as browsers meet it."""
    return Client(raise_request_exception=False, enforce_csrf_checks=True)


def csrf_pair() -> tuple[str, str]:
    """A CSRF cookie value and a form token that goes with it."""
    request = RequestFactory().get("/")
    token = get_token(request)
    return request.META["CSRF_COOKIE"], token


@pytest.mark.parametrize("path", ["/en/", "/fr/", "/healthz", "/en/accounts/login/", "/admin/"])
@pytest.mark.parametrize("host", ["evil.example", "127.0.0.1:abc", "exa mple", "ü.example"])
def test_a_host_the_site_does_not_serve_is_a_400_with_the_sites_page(path, host):
    response = site_client().get(path, HTTP_HOST=host)
    assert response.status_code == 400
    if path.startswith("/fr/"):
        assert FRENCH_400 in response.content.decode()
    elif path.startswith("/en/"):
        assert ENGLISH_400 in response.content.decode()


def test_the_400_for_a_bad_host_has_no_absolute_alternates():
    page = site_client().get("/fr/", HTTP_HOST="evil.example").content.decode()
    assert 'lang="fr"' in page
    assert "evil.example" not in page


def post_body(path: str, body: bytes, content_type: str):
    cookie, token = csrf_pair()
    client = site_client()
    client.cookies["csrftoken"] = cookie
    return client.generic("POST", path, body, content_type=content_type, HTTP_X_CSRFTOKEN=token)


CHARSETS = ["utf-16", "utf-32", "cp037", "latin-9", "iso-8859-15", "foo", "rot13", "idna", "hex"]


@pytest.mark.parametrize("charset", CHARSETS)
@pytest.mark.parametrize("path", ["/en/accounts/login/", "/fr/accounts/signup/"])
def test_a_form_posted_in_another_character_set_is_a_400_or_read_as_utf8(charset, path):
    body = "username=caf%E9&password=\xa4\xff".encode("latin-1")
    response = post_body(path, body, f"application/x-www-form-urlencoded; charset={charset}")
    assert response.status_code in {200, 400}
    if response.status_code == 400:
        page = response.content.decode()
        assert (FRENCH_400 if path.startswith("/fr/") else ENGLISH_400) in page


MULTIPART = [
    ("multipart/form-data", b"abcd"),
    ("multipart/form-data; boundary=\xff\xfe", b"abcd"),
    ("multipart/form-data; boundary=xx", b'--xx\r\nContent-Disposition: form-data; name="a"\r\n'),
    ("multipart/form-data; boundary=xx; charset=foo", b"--xx\r\n\r\n--xx--\r\n"),
    (
        "multipart/form-data; boundary=xx",
        b'--xx\r\nContent-Disposition: form-data; name="username"\r\n'
        b"Content-Transfer-Encoding: base64\r\n\r\n!!!=\r\n--xx--\r\n",
    ),
    (
        "multipart/form-data; boundary=xx",
        b'--xx\r\nContent-Disposition: form-data; name="username"\r\n'
        b"Content-Type: text/plain; charset=foo\r\n\r\n\xff\r\n--xx--\r\n",
    ),
    ("application/x-www-form-urlencoded", b"a=1&" * 2000),
]


@pytest.mark.parametrize(("content_type", "body"), MULTIPART)
def test_a_malformed_body_is_a_400_or_an_ordinary_answer(content_type, body):
    response = post_body("/fr/accounts/login/", body, content_type)
    assert response.status_code in {200, 400}
    if response.status_code == 400:
        assert FRENCH_400 in response.content.decode()


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/en/?q=%ff", {}),
        ("/en/%ff/", {}),
        ("/en/quizzes/%ff%00/", {}),
        ("/en/accounts/login/?next=%ff%00", {}),
        ("/en/", {"HTTP_COOKIE": "sessionid=" + "x" * 4000 + "; csrftoken=\x01"}),
        ("/en/", {"HTTP_COOKIE": "a=b; " * 500}),
        ("/", {"HTTP_ACCEPT_LANGUAGE": "x" * 5000}),
        ("/", {"HTTP_ACCEPT_LANGUAGE": "ÿþ;q=abc, fr;q=nan, *;q=-1"}),
        ("/en/", {"HTTP_X_FORWARDED_FOR": "ÿ, junk, ::::", "HTTP_X_FORWARDED_PROTO": "ÿ"}),
        ("/en/", {"HTTP_X_FORWARDED_HOST": "evil.example", "HTTP_REFERER": "ÿ" * 9000}),
        ("/en/", {"HTTP_USER_AGENT": "x" * 9000}),
    ],
)
def test_odd_paths_queries_cookies_and_headers_get_no_500(path, headers):
    make_quiz()
    response = site_client().get(path, **headers)
    assert response.status_code < 500


def test_a_bad_host_refused_by_the_https_redirect_gets_the_page_in_its_language(settings):
    settings.SECURE_SSL_REDIRECT = True
    response = site_client().get("/fr/quizzes/x/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert FRENCH_400 in response.content.decode()


@pytest.mark.parametrize("path", ["/admin/nope/", "/admin/quizzes/nope/", "/admin/x/y/z/"])
def test_an_unknown_admin_url_for_staff_is_a_404(admin_user, path):
    client = site_client()
    client.force_login(admin_user)
    assert client.get(path).status_code == 404


@pytest.mark.parametrize(
    "path", ["/fr/", "/fr/accounts/login/", "/admin/quizzes/quiz/", "/fr/reports/"]
)
def test_a_nul_in_a_query_or_a_form_is_a_400(path):
    client = Client(raise_request_exception=False)
    client.force_login(make_staff("nul-editor", "Editors"))
    response = client.get(path + "?level__exact=a%00b")
    assert response.status_code == 400
    if path.startswith("/fr/"):
        assert FRENCH_400 in response.content.decode()
    body = "username=a%00b&password=x"
    response = client.post(path, body, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
