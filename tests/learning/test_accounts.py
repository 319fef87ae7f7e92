"""Accounts: signing in and up hand over the anonymous attempts and return to the page the
learner came from; password reset by email; deleting an account, its attempts kept
anonymously or deleted."""

import re

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core import mail

from quizzes.models import Answer, Attempt
from tests.factories import answer, choice_of, question_url, start


def test_sign_up_keeps_the_anonymous_attempt(client, quiz, django_user_model):
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    response = client.post(
        "/en/accounts/signup/",
        {"username": "ada", "password1": "long-pass-phrase-9", "password2": "long-pass-phrase-9"},
        follow=True,
    )
    assert response.status_code == 200
    assert "Your attempts so far are now saved to your account." in response.content.decode()
    attempt.refresh_from_db()
    assert attempt.user == django_user_model.objects.get(username="ada")
    page = client.get(question_url(attempt, 2))
    assert page.status_code == 200
    assert "Question 2 of 8" in page.content.decode()


def test_sign_in_carries_the_anonymous_attempt_over(client, quiz, django_user_model):
    user = django_user_model.objects.create_user("ada", password="long-pass-phrase-9")
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    response = client.post(
        "/en/accounts/login/?next=/en/quizzes/dp-quiz/",
        {"username": "ada", "password": "long-pass-phrase-9"},
    )
    assert response.status_code == 302
    assert response["Location"] == "/en/quizzes/dp-quiz/"
    attempt.refresh_from_db()
    assert attempt.user == user
    assert attempt.learner_key == ""
    assert client.cookies["learner"].value == ""  # The key is gone with the claim.
    landing = client.get("/en/quizzes/dp-quiz/").content.decode()
    assert "Resume at question 2" in landing


def test_signed_in_attempts_follow_the_learner_to_another_device(client, quiz, django_user_model):
    user = django_user_model.objects.create_user("ada", password="long-pass-phrase-9")
    client.force_login(user)
    attempt = start(client, quiz)
    assert attempt.user == user
    other_device = client.__class__()
    other_device.post("/en/accounts/login/", {"username": "ada", "password": "long-pass-phrase-9"})
    assert other_device.get(question_url(attempt, 1)).status_code == 200


def test_sign_in_with_wrong_password_says_so(client, django_user_model):
    django_user_model.objects.create_user("ada", password="long-pass-phrase-9")
    response = client.post("/fr/accounts/login/", {"username": "ada", "password": "nope"})
    assert response.status_code == 200
    assert "Saisissez un nom d’utilisateur et un mot de passe valides" in response.content.decode()


def test_sign_out_ends_access_to_the_attempt(client, quiz, django_user_model):
    client.force_login(django_user_model.objects.create_user("ada", password="x-long-pass-9"))
    attempt = start(client, quiz)
    response = client.post("/en/accounts/logout/")
    assert response.status_code == 302
    assert client.get(question_url(attempt, 1)).status_code == 404
    assert Attempt.objects.get().user is not None


def test_signup_rejects_a_weak_password_and_creates_nobody(client, django_user_model):
    response = client.post(
        "/en/accounts/signup/", {"username": "ada", "password1": "123", "password2": "123"}
    )
    assert response.status_code == 200
    assert "This password is too short." in response.content.decode()
    assert not django_user_model.objects.exists()


def test_signup_ignores_a_next_url_on_another_host(client, db):
    response = client.post(
        "/en/accounts/signup/?next=https://evil.example/",
        {"username": "ada", "password1": "long-pass-phrase-9", "password2": "long-pass-phrase-9"},
    )
    assert response["Location"] == "/en/"


def test_signups_from_one_address_are_rate_limited(client, settings, django_user_model):
    settings.SIGNUP_LIMIT_PER_HOUR = 2
    for number in range(3):
        response = client.post(
            "/fr/accounts/signup/",
            {"username": f"ada{number}", "password1": "a long passphrase", "password2": "x"},
        )
    assert response.status_code == 429 and response.has_header("Retry-After")
    assert "réessayer" in response.content.decode()
    assert not django_user_model.objects.exists()  # The passwords differed: nobody was made.


PASSWORD = "long-pass-phrase-9"
SIGNUP = {"username": "ada", "email": "ada@example.org", "password1": PASSWORD}
SIGNUP["password2"] = PASSWORD


def test_the_quiz_page_s_sign_up_and_in_links_carry_next(client, quiz):
    page = client.get("/en/quizzes/dp-quiz/").content.decode()
    assert 'href="/en/accounts/signup/?next=/en/quizzes/dp-quiz/">Sign up</a>' in page
    assert 'href="/en/accounts/login/?next=/en/quizzes/dp-quiz/">sign in</a>' in page


def test_sign_up_returns_to_the_page_the_learner_came_from(client, quiz):
    form = client.get("/en/accounts/signup/?next=/en/quizzes/dp-quiz/").content.decode()
    assert '<input type="hidden" name="next" value="/en/quizzes/dp-quiz/">' in form
    response = client.post("/en/accounts/signup/?next=/en/quizzes/dp-quiz/", SIGNUP)
    assert response.status_code == 302 and response["Location"] == "/en/quizzes/dp-quiz/"
    assert User.objects.get(username="ada").email == "ada@example.org"


@pytest.mark.parametrize(
    "target", ["https://evil.example/", "//evil.example/", "http://testserver.evil/"]
)
def test_next_to_another_site_goes_home(client, db, target, django_user_model):
    response = client.post("/en/accounts/signup/", SIGNUP | {"next": target})
    assert response["Location"] == "/en/"
    client.logout()
    response = client.post(
        "/en/accounts/login/", {"username": "ada", "password": PASSWORD, "next": target}
    )
    assert response.status_code == 302 and response["Location"] == "/en/"
    page = client.get(f"/en/accounts/signup/?next={target}").content.decode()
    assert "evil" not in page.replace("next=", "") or 'value=""' in page


def reset_link(lang="en") -> str:
    (email,) = mail.outbox
    site = re.escape(settings.SITE_URL)
    return re.search(rf"{site}(/{lang}/accounts/reset/\S+/)", email.body).group(1)


@pytest.fixture
def ada(db):
    return User.objects.create_user("ada", email="ada@example.org", password=PASSWORD)


def test_password_reset_by_email(client, ada):
    page = client.get("/en/accounts/login/").content.decode()
    assert 'href="/en/accounts/password_reset/"' in page
    response = client.post("/fr/accounts/password_reset/", {"email": "ada@example.org"})
    assert response["Location"] == "/fr/accounts/password_reset/done/"
    assert mail.outbox[0].subject == "Réinitialiser votre mot de passe Quizsite"
    link = reset_link("fr")
    form_url = client.get(link)["Location"]  # Django hides the token from the page's URL.
    assert "Choisissez un nouveau mot de passe" in client.get(form_url).content.decode()
    new = {"new_password1": "another-pass-phrase-7", "new_password2": "another-pass-phrase-7"}
    response = client.post(form_url, new)
    assert response["Location"] == "/fr/accounts/reset/done/"
    assert client.login(username="ada", password="another-pass-phrase-7")


def test_a_reset_link_used_twice_gets_a_clear_page(client, ada):
    client.post("/en/accounts/password_reset/", {"email": "ada@example.org"})
    link = reset_link()
    form_url = client.get(link)["Location"]
    new = {"new_password1": "another-pass-phrase-7", "new_password2": "another-pass-phrase-7"}
    client.post(form_url, new)
    again = client.get(link, follow=True)
    assert again.status_code == 200
    assert "This link no longer works" in again.content.decode()
    response = client.post(form_url, {"new_password1": "x-3-pass", "new_password2": "x-3-pass"})
    assert "This link no longer works" in response.content.decode()
    ada.refresh_from_db()
    assert ada.check_password("another-pass-phrase-7")


def test_an_expired_reset_link_gets_a_clear_page(client, ada, settings):
    client.post("/en/accounts/password_reset/", {"email": "ada@example.org"})
    link = reset_link()
    settings.PASSWORD_RESET_TIMEOUT = -1
    page = client.get(link, follow=True)
    assert page.status_code == 200 and "This link no longer works" in page.content.decode()
    ada.refresh_from_db()
    assert ada.check_password(PASSWORD)


def test_reset_for_an_unknown_address_says_the_same_and_sends_nothing(client, ada):
    response = client.post("/en/accounts/password_reset/", {"email": "nobody@example.org"})
    assert response["Location"] == "/en/accounts/password_reset/done/"
    assert mail.outbox == []


def test_a_tampered_reset_link_gets_the_clear_page(client, ada):
    page = client.get("/en/accounts/reset/MQ/set-password/", follow=True)
    assert page.status_code == 200 and "This link no longer works" in page.content.decode()
    page = client.get("/en/accounts/reset/zzz/abc-def/", follow=True)
    assert page.status_code == 200 and "This link no longer works" in page.content.decode()


@pytest.fixture
def ada_with_an_attempt(client, quiz, ada):
    client.force_login(ada)
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    return attempt


def test_the_delete_page_says_what_becomes_of_the_attempts(client, ada_with_an_attempt):
    page = client.get("/en/accounts/delete/").content.decode()
    assert "Kept anonymously, they stay in the instructors' reports" in page
    assert "Deleted, they are gone with their answers" in page
    assert 'type="password"' in page


def test_delete_keeping_the_attempts_anonymously(client, ada, ada_with_an_attempt):
    response = client.post("/en/accounts/delete/", {"attempts": "keep", "password": PASSWORD})
    assert response["Location"] == "/en/"
    assert not User.objects.filter(username="ada").exists()
    attempt = Attempt.objects.get(pk=ada_with_an_attempt.pk)
    assert attempt.user is None and attempt.learner_key.startswith("deleted-")
    assert Answer.objects.filter(attempt=attempt).count() == 1
    assert "_auth_user_id" not in client.session


def test_delete_with_the_attempts(client, ada, ada_with_an_attempt):
    client.post("/en/accounts/delete/", {"attempts": "delete", "password": PASSWORD})
    assert not User.objects.filter(username="ada").exists()
    assert not Attempt.objects.exists() and not Answer.objects.exists()


def test_two_deleted_accounts_keep_their_first_attempts(client, quiz, ada):
    for name in ("ada", "bob"):
        user = User.objects.get_or_create(username=name)[0]
        user.set_password(PASSWORD)
        user.save()
        client.force_login(user)
        start(client, quiz)
        client.post("/en/accounts/delete/", {"attempts": "keep", "password": PASSWORD})
    assert Attempt.objects.filter(is_first=True, user=None).count() == 2


def test_delete_needs_the_password(client, ada, ada_with_an_attempt):
    response = client.post("/en/accounts/delete/", {"attempts": "delete", "password": "wrong"})
    assert response.status_code == 400
    assert "That is not your password." in response.content.decode()
    assert User.objects.filter(username="ada").exists() and Attempt.objects.exists()
    response = client.post("/en/accounts/delete/", {"attempts": "both", "password": PASSWORD})
    assert response.status_code == 400 and User.objects.filter(username="ada").exists()


def test_delete_needs_a_signed_in_learner(client, db):
    response = client.get("/en/accounts/delete/")
    assert response.status_code == 302 and response["Location"].startswith("/en/accounts/login/")


def test_password_resets_from_one_address_are_rate_limited(client, settings, ada):
    settings.PASSWORD_RESET_LIMIT_PER_HOUR = 2
    for _ in range(3):
        response = client.post("/en/accounts/password_reset/", {"email": "ada@example.org"})
    assert response.status_code == 429 and response.has_header("Retry-After")
    assert len(mail.outbox) == 2


def test_a_reset_link_is_on_the_sites_address_whatever_host_the_request_named(
    client, ada, settings
):
    settings.SITE_URL = "https://quiz.example.org"
    settings.ALLOWED_HOSTS = ["quiz.example.org"]
    headers = {"host": "quiz.example.org:6666"}
    client.post("/en/accounts/password_reset/", {"email": "ada@example.org"}, headers=headers)
    (email,) = mail.outbox
    assert "https://quiz.example.org/en/accounts/reset/" in email.body
    assert ":6666" not in email.body


def test_an_account_gets_a_few_reset_emails_a_day_however_many_ask(client, ada, settings):
    settings.PASSWORD_RESET_EMAILS_PER_ACCOUNT_PER_DAY = 2
    for _ in range(4):
        response = client.post("/en/accounts/password_reset/", {"email": "ADA@example.org"})
        assert response["Location"] == "/en/accounts/password_reset/done/"  # The same page.
    assert len(mail.outbox) == 2


def test_sign_up_refuses_an_email_address_another_account_uses(client, ada):
    data = {"username": "grace", "email": "Ada@Example.org"}
    data |= {"password1": "a-pass-phrase-77", "password2": "a-pass-phrase-77"}
    response = client.post("/en/accounts/signup/", data)
    assert response.status_code == 200
    assert "Another account uses this email address." in response.content.decode()
    assert not User.objects.filter(username="grace").exists()


def test_guessing_the_password_of_the_account_deletion_is_limited(client, ada, settings):
    settings.ACCOUNT_DELETE_LIMIT_PER_HOUR = 3
    client.force_login(ada)
    wrong = {"attempts": "keep", "password": "not-it"}
    statuses = [client.post("/en/accounts/delete/", wrong).status_code for _ in range(4)]
    assert statuses == [400, 400, 400, 429]
    right = {"attempts": "keep", "password": PASSWORD}
    assert client.post("/en/accounts/delete/", right).status_code == 429
    assert User.objects.filter(pk=ada.pk).exists()


def test_the_header_names_the_learner_by_name_else_by_username(client, django_user_model):
    """An account from an LMS has a made-up username: the header says the name it gave."""
    user = django_user_model.objects.create_user("lti-7f3a9c", password="pw-long-enough-1")
    client.force_login(user)
    assert "Signed in as lti-7f3a9c" in client.get("/en/").content.decode()
    user.first_name, user.last_name = "Grace", "Hopper"
    user.save()
    page = client.get("/fr/").content.decode()
    assert "Connecté en tant que Grace Hopper" in page
    assert "lti-7f3a9c" not in page
