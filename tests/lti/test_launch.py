"""LTI 1.3 launches from a real platform on loopback, over HTTP: the launch signs the learner
in and opens the quiz, the finished attempt's score reaches the platform's line item, and
every bad token is refused with nothing recorded."""

import json
import re
import time

import pytest
import requests
from django.contrib.auth import get_user_model
from django.core.management import call_command
from jwcrypto.jwk import JWK

from quizzes.lti.models import Context, Identity, ResourceLink, Score
from quizzes.models import Assignment, Attempt, Class, Membership
from tests.factories import make_quiz
from tests.lti.conftest import launch, login
from tests.lti.platform import INSTRUCTOR


def run_tasks() -> None:
    call_command("db_worker", batch=True, interval=0, verbosity=0, startup_delay=False)


def answer_all(session, page: requests.Response, quiz) -> requests.Response:
    """Answer each question with its right choice, as the learner's browser posts it."""
    base = page.url.rsplit("/questions/", 1)[0]
    for question in quiz.questions.order_by("position"):
        page = session.get(f"{base}/questions/{question.position}/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        right = question.choices.get(position=1)
        page = session.post(
            page.url,
            data={"csrfmiddlewaretoken": token, "choice": right.pk},
            headers={"Referer": page.url},
        )
        assert page.status_code == 200, page.text
    return page


def test_launch_takes_the_quiz_and_the_platform_gets_the_score(platform, live_server):
    quiz = make_quiz(questions=2)
    session = requests.Session()
    page = launch(session, platform, live_server.url, platform.claims(sub="u-1", quiz=quiz.slug))

    assert page.status_code == 200
    assert "/en/attempts/" in page.url and page.url.endswith("/questions/1/")
    user = Identity.objects.get(platform=platform.record, sub="u-1").user
    assert not user.has_usable_password()
    context = Context.objects.get(context_id="course-1")
    assert context.klass.name == "Data parallelism 101"
    assert Membership.objects.filter(klass=context.klass, learner=user).exists()
    link = ResourceLink.objects.get(link_id="link-1")
    assert link.assignment.quiz == quiz
    assert link.lineitem_url == platform.lineitem_url()
    attempt = Attempt.objects.get(user=user)
    assert attempt.assignment == link.assignment and attempt.number == 1

    answer_all(session, page, quiz)
    attempt.refresh_from_db()
    assert attempt.completed_at is not None
    assert platform.scores == []  # Sent by the task worker, not by the learner's request.
    run_tasks()

    [score] = platform.scores
    assert score["lineitem"] == "/lineitems/1/lineitem/scores"
    assert score["userId"] == "u-1"
    assert (score["scoreGiven"], score["scoreMaximum"]) == (100, 100)
    assert score["activityProgress"] == "Completed"
    assert score["gradingProgress"] == "FullyGraded"
    assert score["timestamp"].endswith("Z")
    assert Score.objects.get().sent_at is not None


def test_a_refused_score_stays_pending_and_is_sent_again(platform, live_server):
    quiz = make_quiz(questions=1)
    session = requests.Session()
    page = launch(session, platform, live_server.url, platform.claims(sub="u-2", quiz=quiz.slug))
    platform.refuse_scores = True
    answer_all(session, page, quiz)
    run_tasks()

    score = Score.objects.get()
    assert score.sent_at is None and score.tries == 1
    assert "503" in score.last_error
    assert platform.scores == []

    platform.refuse_scores = False
    call_command("lti_send_scores", verbosity=0)
    score.refresh_from_db()
    assert score.sent_at is not None and score.last_error == ""
    assert len(platform.scores) == 1


def test_an_instructor_launch_opens_the_class(platform, live_server):
    quiz = make_quiz(questions=1)
    session = requests.Session()
    claims = platform.claims(sub="teacher", roles=[INSTRUCTOR], quiz=quiz.slug)
    page = launch(session, platform, live_server.url, claims)

    klass = Context.objects.get().klass
    assert page.status_code == 200 and page.url.endswith(klass.get_absolute_url())
    assert klass.instructors.get() == Identity.objects.get(sub="teacher").user
    assert not Attempt.objects.exists()


def test_the_launch_locale_gives_the_language(platform, live_server):
    quiz = make_quiz(questions=1)
    session = requests.Session()
    claims = platform.claims(sub="u-fr", quiz=quiz.slug, locale="fr-CA")
    page = launch(session, platform, live_server.url, claims)
    assert "/fr/attempts/" in page.url
    assert "Énoncé de la question 1" in page.text


NOTHING = (get_user_model(), Identity, Class, Context, Assignment, Attempt)


def assert_nothing_recorded():
    for model in NOTHING:
        assert not model.objects.exists(), model


def test_a_forged_token_is_refused(platform, live_server):
    quiz = make_quiz(questions=1)
    session = requests.Session()
    fields = login(session, platform, live_server.url, platform.claims(sub="x", quiz=quiz.slug))
    nonce = json.loads(_body(fields["id_token"]))["nonce"]
    forger = JWK.generate(kty="RSA", size=2048, kid="platform-key")
    claims = platform.claims(sub="x", quiz=quiz.slug)
    fields["id_token"] = platform.id_token(claims, nonce=nonce, key=forger)
    page = session.post(live_server.url + "/lti/launch/", data=fields)
    assert page.status_code == 403
    assert "could not be checked" in page.text
    assert_nothing_recorded()


def _body(token: str) -> str:
    import base64

    part = token.split(".")[1]
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)).decode()


def test_a_replayed_launch_is_refused(platform, live_server):
    quiz = make_quiz(questions=1)
    session = requests.Session()
    fields = login(session, platform, live_server.url, platform.claims(sub="r", quiz=quiz.slug))
    first = session.post(live_server.url + "/lti/launch/", data=fields)
    assert first.status_code == 200
    replay = session.post(live_server.url + "/lti/launch/", data=fields)
    assert replay.status_code == 403
    assert Attempt.objects.count() == 1


@pytest.mark.parametrize(
    "tamper",
    ["expired", "audience", "deployment", "no_nonce_login"],
)
def test_a_bad_token_is_refused_and_nothing_recorded(platform, live_server, tamper):
    quiz = make_quiz(questions=1)
    session = requests.Session()
    claims = platform.claims(sub="b", quiz=quiz.slug)
    fields = login(session, platform, live_server.url, claims)
    nonce = json.loads(_body(fields["id_token"]))["nonce"]
    if tamper == "expired":
        fields["id_token"] = platform.id_token(claims, nonce=nonce, lifetime=-60)
    elif tamper == "audience":
        fields["id_token"] = platform.id_token(claims, nonce=nonce, aud="another-tool")
    elif tamper == "deployment":
        other = {**claims, "https://purl.imsglobal.org/spec/lti/claim/deployment_id": "dep-9"}
        fields["id_token"] = platform.id_token(other, nonce=nonce)
    else:  # A nonce the site never gave.
        fields["id_token"] = platform.id_token(claims, nonce="made-up-" + str(time.time()))
    page = session.post(live_server.url + "/lti/launch/", data=fields)
    assert page.status_code == 403
    assert "Nothing was recorded" in page.text
    assert_nothing_recorded()


def test_a_launch_of_no_quiz_records_nothing(platform, live_server):
    session = requests.Session()
    page = launch(session, platform, live_server.url, platform.claims(sub="n", quiz="nope"))
    assert page.status_code == 404
    assert_nothing_recorded()


def test_an_unregistered_platform_cannot_log_in(platform, live_server):
    params = platform.login_params(live_server.url, "who")
    params["iss"] = "https://unknown.example"
    page = requests.get(live_server.url + "/lti/login/", params=params)
    assert page.status_code == 400


def test_the_jwks_publishes_the_tool_key(platform, live_server):
    keys = requests.get(live_server.url + "/lti/jwks/").json()["keys"]
    assert [k["kty"] for k in keys] == ["RSA"] and "d" not in keys[0]
    assert requests.get(live_server.url + "/lti/jwks/").json() == {"keys": keys}


def test_framing_is_allowed_for_the_launch_platform_only(platform, live_server):
    quiz = make_quiz(questions=1)
    session = requests.Session()
    page = launch(session, platform, live_server.url, platform.claims(sub="f", quiz=quiz.slug))
    assert f"frame-ancestors {platform.url}" in page.headers["Content-Security-Policy"]
    assert "X-Frame-Options" not in page.headers
    other = requests.get(live_server.url + "/en/")
    assert "frame-ancestors 'none'" in other.headers["Content-Security-Policy"]
    assert other.headers["X-Frame-Options"] == "DENY"


def test_a_launch_after_the_last_attempt_allowed_opens_none(platform, live_server):
    quiz = make_quiz(questions=1)
    session = requests.Session()
    claims = platform.claims(sub="l", quiz=quiz.slug)
    answer_all(session, launch(session, platform, live_server.url, claims), quiz)
    Assignment.objects.update(attempt_limit=1)

    again = launch(session, platform, live_server.url, claims)
    assert again.status_code == 403
    assert "You have used every attempt this assignment allows." in again.text
    assert Attempt.objects.count() == 1


def test_a_second_launch_resumes_the_attempt_in_progress(platform, live_server):
    quiz = make_quiz(questions=2)
    session = requests.Session()
    claims = platform.claims(sub="l", quiz=quiz.slug)
    first = launch(session, platform, live_server.url, claims)
    again = launch(session, platform, live_server.url, claims)
    assert again.url == first.url
    assert Attempt.objects.count() == 1 and Class.objects.count() == 1


@pytest.mark.parametrize("target", [{}, {"quiz": ""}, {"quiz": "nope"}])
def test_an_instructors_launch_of_a_link_to_no_quiz_opens_the_class(platform, live_server, target):
    session = requests.Session()
    claims = platform.claims(sub="teacher", roles=[INSTRUCTOR])
    claims["https://purl.imsglobal.org/spec/lti/claim/custom"] = target
    page = launch(session, platform, live_server.url, claims)

    klass = Context.objects.get().klass
    assert page.status_code == 200 and page.url.endswith(klass.get_absolute_url())
    assert "This activity of your course links to no quiz of the site" in page.text
    assert "quiz=&lt;the quiz&#x27;s slug&gt;" in page.text
    assert klass.instructors.get() == Identity.objects.get(sub="teacher").user
    assert not Assignment.objects.exists() and not ResourceLink.objects.exists()


def test_a_learners_launch_of_a_link_to_no_quiz_says_so(platform, live_server):
    claims = platform.claims(sub="learner", locale="fr")
    page = launch(requests.Session(), platform, live_server.url, claims)
    assert page.status_code == 404
    assert "Votre formateur n’a pas encore choisi" in page.text
    assert_nothing_recorded()
