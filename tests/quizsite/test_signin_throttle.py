"""Failed sign-ins are counted per account and per client address, in the database."""

import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.contrib.auth.models import User
from django.core.management import call_command
from django.http import HttpResponse
from django.test import Client
from django.urls import path
from django.utils import timezone

from quizsite import urls as site_urls
from quizsite.models import RateLimitHit
from quizsite.ratelimit import ratelimit

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"


class CountingHasher(PBKDF2PasswordHasher):
    """PBKDF2 that counts the passwords it checked, for the parallel test."""

    algorithm = "counting_pbkdf2"
    iterations = 50_000
    checked = 0
    lock = threading.Lock()

    def verify(self, password, encoded):
        with CountingHasher.lock:
            CountingHasher.checked += 1
        return super().verify(password, encoded)


@pytest.fixture(autouse=True)
def limits(settings):
    settings.AXES_FAILURE_LIMIT = 3
    settings.PASSWORD_HASHERS = ["tests.quizsite.test_signin_throttle.CountingHasher"]


@pytest.fixture
def learner():
    return User.objects.create_user("ada", password=PASSWORD)


def sign_in(username: str, password: str, *, lang: str = "en", address: str = "10.0.0.1", **extra):
    return Client(REMOTE_ADDR=address, **extra).post(
        f"/{lang}/accounts/login/", {"username": username, "password": password}
    )


def test_the_failure_after_the_limit_gets_a_429_saying_when_to_try_again(learner, settings):
    for _ in range(2):
        response = sign_in("ada", "wrong")
        assert response.status_code == 200
    response = sign_in("ada", "wrong", lang="fr")  # the third failure locks
    assert response.status_code == 429
    assert 14 * 60 < int(response["Retry-After"]) <= 15 * 60
    page = response.content.decode()
    assert "Trop de tentatives" in page
    assert "dans 15\u00a0minutes" in page
    assert sign_in("ada", PASSWORD).status_code == 429  # not even the right password


def test_an_account_is_locked_from_every_address_and_an_address_for_every_account(learner):
    for address in ("10.0.0.1", "10.0.0.2", "10.0.0.3"):
        sign_in("ada", "wrong", address=address)
    assert sign_in("ada", PASSWORD, address="10.0.0.9").status_code == 429

    User.objects.create_user("grace", password=PASSWORD)
    for name in ("bob", "carol", "dan"):
        sign_in(name, "123456", address="10.0.0.5")
    assert sign_in("grace", PASSWORD, address="10.0.0.5").status_code == 429
    assert sign_in("grace", PASSWORD, address="10.0.0.6").status_code == 302


def test_x_forwarded_for_is_ignored_unless_proxies_are_configured(learner, settings):
    for n in range(3):
        sign_in(f"user{n}", "wrong", HTTP_X_FORWARDED_FOR=f"192.0.2.{n}")
    assert sign_in("ada", PASSWORD, HTTP_X_FORWARDED_FOR="192.0.2.99").status_code == 429

    settings.TRUSTED_PROXY_COUNT = 1
    proxy = "10.9.9.9"
    for n in range(3):
        sign_in(f"other{n}", "wrong", address=proxy, HTTP_X_FORWARDED_FOR=f"1.1.1.1, 192.0.2.{n}")
    response = sign_in("ada", PASSWORD, address=proxy, HTTP_X_FORWARDED_FOR="1.1.1.1, 192.0.2.50")
    assert response.status_code == 302  # each client behind the proxy counted on its own
    for _ in range(3):
        sign_in("nobody", "wrong", address=proxy, HTTP_X_FORWARDED_FOR="spoofed, 192.0.2.7")
    assert (
        sign_in("x", "y", address=proxy, HTTP_X_FORWARDED_FOR="198.51.100.1, 192.0.2.7").status_code
        == 429
    )  # what the client put to the left of our proxy's entry changes nothing


def test_the_admin_sign_in_is_throttled_too():
    User.objects.create_superuser("boss", password=PASSWORD)
    client = Client(REMOTE_ADDR="10.0.0.1")
    for _ in range(3):
        client.post("/admin/login/", {"username": "boss", "password": "wrong"})
    response = client.post("/admin/login/", {"username": "boss", "password": PASSWORD})
    assert response.status_code == 429
    assert response["Retry-After"]


def test_axes_reset_username_unlocks_an_account(learner):
    for address in ("10.0.0.1", "10.0.0.2", "10.0.0.3"):
        sign_in("ada", "wrong", address=address)
    assert sign_in("ada", PASSWORD, address="10.0.0.4").status_code == 429
    call_command("axes_reset_username", "ada")
    assert sign_in("ada", PASSWORD, address="10.0.0.4").status_code == 302


@pytest.mark.skipif(
    settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"),
    reason="the live server's threads share one in-memory SQLite connection: no parallelism",
)
@pytest.mark.django_db(transaction=True)
def test_50_parallel_wrong_guesses_check_no_more_passwords_than_the_limit(live_server, settings):
    settings.AXES_FAILURE_LIMIT = 5
    User.objects.create_user("ada", password=PASSWORD)
    CountingHasher.checked = 0
    url = f"{live_server.url}/en/accounts/login/"
    statuses = []
    start = threading.Barrier(50)

    with urllib.request.urlopen(url) as response:
        cookie = response.headers["Set-Cookie"].split(";")[0]
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', response.read().decode())

    def guess(n: int) -> None:
        fields = {"username": "ada", "password": f"guess-{n}", "csrfmiddlewaretoken": token[1]}
        request = urllib.request.Request(
            url, urllib.parse.urlencode(fields).encode(), headers={"Cookie": cookie}
        )
        start.wait()
        while True:  # the live server's listen queue is short: a reset never reached Django
            try:
                with urllib.request.urlopen(request, timeout=60) as response:
                    statuses.append(response.status)
            except urllib.error.HTTPError as error:
                statuses.append(error.code)
            except (ConnectionResetError, urllib.error.URLError):
                continue
            return

    threads = [threading.Thread(target=guess, args=(n,)) for n in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    counts = {status: statuses.count(status) for status in sorted(set(statuses))}
    print(f"\n50 parallel guesses, limit 5: {CountingHasher.checked} password checks; {counts}")
    assert len(statuses) == 50
    assert 1 <= CountingHasher.checked <= 5
    # The live server's 50 threads share one process's pool of connections, sized for a sync
    # worker that serves one request at a time: a guess that waits past the pool's timeout
    # gets the 503 page, without a password check either.
    assert set(statuses) <= {200, 429, 503}
    assert statuses.count(429) >= 1
    assert statuses.count(200) <= 5


def limited_view(request):
    return HttpResponse("signed up")


urlpatterns = [
    *site_urls.urlpatterns,
    path("signup/", ratelimit("test-signup", limit=3, per=3600)(limited_view), name="limited"),
    path(
        "signup-setting/",
        ratelimit("test-signup-setting", limit="SIGNUP_LIMIT_PER_HOUR", per=3600)(limited_view),
        name="limited-by-setting",
    ),
]


@pytest.mark.urls(__name__)
def test_the_ratelimit_decorator_refuses_posts_over_the_limit_per_address():
    client = Client(REMOTE_ADDR="10.0.0.1")
    assert [client.post("/signup/").status_code for _ in range(3)] == [200, 200, 200]
    assert client.get("/signup/").status_code == 200  # only POSTs count
    response = client.post("/signup/")
    assert response.status_code == 429
    assert 3590 < int(response["Retry-After"]) <= 3600
    assert "Too many attempts from your address" in response.content.decode()
    assert Client(REMOTE_ADDR="10.0.0.2").post("/signup/").status_code == 200


@pytest.mark.urls(__name__)
def test_hits_older_than_the_window_go_whichever_address_they_were_for():
    client = Client(REMOTE_ADDR="10.0.0.1")
    client.post("/signup/")
    RateLimitHit.objects.update(at=timezone.now() - timedelta(hours=2))
    Client(REMOTE_ADDR="10.0.0.2").post("/signup/")
    assert RateLimitHit.objects.count() == 1


@pytest.mark.urls(__name__)
def test_the_limit_can_be_a_setting_read_at_each_request(settings):
    settings.SIGNUP_LIMIT_PER_HOUR = 1
    client = Client(REMOTE_ADDR="10.0.0.1")
    assert [client.post("/signup-setting/").status_code for _ in range(2)] == [200, 429]
