from quizzes.models import Attempt
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
