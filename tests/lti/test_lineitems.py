"""A link whose launch carries the course's line items but none of its own: the site finds
its gradebook column on the platform, or makes it, so that its scores go back all the same."""

import requests
from django.core.management import call_command

from quizzes.lti.models import ResourceLink, Score
from tests.factories import make_quiz
from tests.lti.conftest import launch
from tests.lti.test_launch import answer_all, run_tasks


def test_a_launch_without_a_line_item_makes_one_and_the_score_goes_to_it(platform, live_server):
    quiz = make_quiz(questions=1)
    session = requests.Session()
    claims = platform.claims(sub="u", quiz=quiz.slug, lineitem="")
    page = launch(session, platform, live_server.url, claims)
    link = ResourceLink.objects.get()
    assert (link.lineitem_url, link.lineitems_url) == ("", platform.url + "/lineitems")

    run_tasks()
    [made] = platform.lineitems
    assert made["resourceLinkId"] == "link-1"
    assert made["label"] == quiz.title and made["scoreMaximum"] == 100
    link.refresh_from_db()
    assert link.lineitem_url == made["id"] == platform.lineitem_url("made-0")

    answer_all(session, page, quiz)
    run_tasks()
    [score] = platform.scores
    assert score["lineitem"] == "/lineitems/made-0/lineitem/scores"
    assert score["scoreGiven"] == 100
    # Another launch of the link makes no second column.
    launch(requests.Session(), platform, live_server.url, {**claims, "sub": "v"})
    run_tasks()
    assert len(platform.lineitems) == 1


def test_the_links_column_on_the_platform_is_found_not_made_again(platform, live_server):
    quiz = make_quiz(questions=1)
    other = {"id": platform.lineitem_url("other"), "resourceLinkId": "link-9", "label": "X"}
    mine = {"id": platform.lineitem_url("mine"), "resourceLinkId": "link-1", "label": "Old"}
    platform.lineitems = [other, mine]
    claims = platform.claims(sub="u", quiz=quiz.slug, lineitem="")
    launch(requests.Session(), platform, live_server.url, claims)
    run_tasks()
    assert platform.lineitems == [other, mine]
    assert ResourceLink.objects.get().lineitem_url == mine["id"]


def test_a_column_the_platform_would_not_make_is_made_with_the_score(platform, live_server):
    quiz = make_quiz(questions=1)
    platform.refuse_lineitems = True
    session = requests.Session()
    claims = platform.claims(sub="u", quiz=quiz.slug, lineitem="")
    answer_all(session, launch(session, platform, live_server.url, claims), quiz)
    run_tasks()
    score = Score.objects.get()
    assert score.sent_at is None and "503" in score.last_error
    assert platform.lineitems == [] and platform.scores == []

    platform.refuse_lineitems = False
    call_command("lti_send_scores", verbosity=0)
    [made] = platform.lineitems
    [sent] = platform.scores
    assert sent["lineitem"] == "/lineitems/made-0/lineitem/scores"
    assert ResourceLink.objects.get().lineitem_url == made["id"]


def test_without_the_scope_to_make_columns_nothing_is_asked(platform, live_server):
    quiz = make_quiz(questions=1)
    session = requests.Session()
    claims = platform.claims(sub="u", quiz=quiz.slug, lineitem="")
    ags = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
    claims[ags]["scope"] = ["https://purl.imsglobal.org/spec/lti-ags/scope/score"]
    answer_all(session, launch(session, platform, live_server.url, claims), quiz)
    run_tasks()
    assert ResourceLink.objects.get().lineitems_url == ""
    assert not Score.objects.exists() and platform.lineitems == []
