"""Deep linking and Names and Role Provisioning against the platform on loopback."""

import re

import jwt
import requests
from jwcrypto.jwk import JWK

from guides.models import GuidePath
from quizzes.lti.models import Context, Identity
from quizzes.models import Membership
from tests.factories import make_guide, make_quiz
from tests.lti.conftest import form_of, launch
from tests.lti.platform import INSTRUCTOR, LEARNER

CONTENT_ITEMS = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"


def tool_decode(token: str, live_server, platform) -> dict:
    """The tool's signed response, checked as the LMS checks it: against the tool's JWKS."""
    keys = requests.get(live_server.url + "/lti/jwks/").json()["keys"]
    kid = jwt.get_unverified_header(token)["kid"]
    [key] = [k for k in keys if k["kid"] == kid]
    return jwt.decode(
        token, JWK(**key).export_to_pem(), algorithms=["RS256"], audience=platform.issuer
    )


def csrf(page) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)


def test_deep_linking_returns_a_signed_link_to_the_picked_quiz(platform, live_server):
    quiz = make_quiz(questions=1)
    session = requests.Session()
    page = launch(session, platform, live_server.url, platform.deep_link_claims(sub="t"))
    assert page.status_code == 200 and page.url.endswith("/lti/deep-link/")
    assert quiz.title in page.text
    assert "guide path" not in page.text  # This LMS takes one link at a time.

    done = session.post(
        page.url,
        data={"csrfmiddlewaretoken": csrf(page), "pick": f"quiz:{quiz.slug}"},
        headers={"Referer": page.url},
    )
    assert done.status_code == 200
    action, fields = form_of(done.text)
    assert action == platform.url + "/deep-link-return"
    body = tool_decode(fields["JWT"], live_server, platform)
    assert body["iss"] == platform.client_id
    assert body["https://purl.imsglobal.org/spec/lti-dl/claim/data"] == "opaque-platform-data"
    [item] = body[CONTENT_ITEMS]
    assert item["custom"] == {"quiz": quiz.slug}
    assert item["url"] == live_server.url + "/lti/launch/"
    assert item["lineItem"]["scoreMaximum"] == 100
    # The deep link's launch is answered once: the picker is gone.
    assert session.get(page.url).status_code == 404


def test_deep_linking_a_guide_path_links_each_of_its_quizzes(platform, live_server):
    path = make_guide()
    first = make_quiz(slug="one", questions=1, guide=path)
    second = make_quiz(slug="two", questions=1, guide=path, title_en="Another quiz")
    session = requests.Session()
    claims = platform.deep_link_claims(sub="t", several=True)
    page = launch(session, platform, live_server.url, claims)
    done = session.post(
        page.url,
        data={"csrfmiddlewaretoken": csrf(page), "pick": f"path:{path.slug}"},
        headers={"Referer": page.url},
    )
    body = tool_decode(form_of(done.text)[1]["JWT"], live_server, platform)
    slugs = sorted(item["custom"]["quiz"] for item in body[CONTENT_ITEMS])
    assert slugs == sorted([first.slug, second.slug])
    assert GuidePath.objects.count() == 1


def test_a_bad_pick_is_refused(platform, live_server):
    make_quiz(questions=1)
    session = requests.Session()
    page = launch(session, platform, live_server.url, platform.deep_link_claims(sub="t"))
    bad = session.post(
        page.url,
        data={"csrfmiddlewaretoken": csrf(page), "pick": "quiz:no"},
        headers={"Referer": page.url},
    )
    assert bad.status_code == 400
    assert "Choose one of the quizzes listed" in bad.text


def test_a_learner_cannot_deep_link(platform, live_server):
    session = requests.Session()
    claims = platform.deep_link_claims(sub="s")
    claims["https://purl.imsglobal.org/spec/lti/claim/roles"] = [LEARNER]
    page = launch(session, platform, live_server.url, claims)
    assert page.status_code == 403
    assert not Identity.objects.exists() and not Context.objects.exists()


def test_the_roster_comes_from_the_platform(platform, live_server):
    quiz = make_quiz(questions=1)
    platform.members = [
        {"user_id": "teacher", "roles": [INSTRUCTOR], "status": "Active"},
        {
            "user_id": "m-1",
            "given_name": "Grace",
            "family_name": "Hopper",
            "roles": [LEARNER],
            "status": "Active",
        },
        {"user_id": "m-2", "roles": ["Learner"], "status": "Active"},
        {"user_id": "gone", "roles": [LEARNER], "status": "Inactive"},
    ]
    session = requests.Session()
    claims = platform.claims(sub="teacher", roles=[INSTRUCTOR], quiz=quiz.slug)
    page = launch(session, platform, live_server.url, claims)
    assert "Bring the roster from the LMS" in page.text

    klass = Context.objects.get().klass
    done = session.post(
        live_server.url + f"/lti/classes/{klass.pk}/roster/",
        data={"csrfmiddlewaretoken": csrf(page)},
        headers={"Referer": page.url},
    )
    assert done.status_code == 200
    assert "Roster: 2 learners" in done.text
    assert "Grace Hopper" in done.text and "grace-hopper.lti" not in done.text
    learners = Membership.objects.filter(klass=klass).values_list(
        "learner__lti_identity__sub", flat=True
    )
    assert sorted(learners) == ["m-1", "m-2"]
    assert not Identity.objects.filter(sub="gone").exists()
    assert list(klass.instructors.values_list("lti_identity__sub", flat=True)) == ["teacher"]

    platform.members = platform.members[:2]  # m-2 left the course.
    again = session.post(
        live_server.url + f"/lti/classes/{klass.pk}/roster/",
        data={"csrfmiddlewaretoken": csrf(page)},
        headers={"Referer": page.url},
    )
    assert "1 member who left the course left the class; their attempts stay." in again.text
    assert "Roster: 1 learner" in again.text


def test_only_the_class_instructor_fills_its_roster(platform, live_server):
    quiz = make_quiz(questions=1)
    learner = requests.Session()
    page = launch(learner, platform, live_server.url, platform.claims(sub="l", quiz=quiz.slug))
    klass = Context.objects.get().klass
    refused = learner.post(
        live_server.url + f"/lti/classes/{klass.pk}/roster/",
        data={"csrfmiddlewaretoken": csrf(page)},
        headers={"Referer": page.url},
    )
    assert refused.status_code == 404
    assert Membership.objects.filter(klass=klass).count() == 1
