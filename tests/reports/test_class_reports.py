"""Who reads which report: the site-wide report permission reads every learner; a class's
instructor only the learners of their own classes (a foreign class or learner is not found);
editors, learners and visitors no grades. And a class's report (?class=): its learners'
attempts at its assignments."""

import csv
import io
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from quizzes.classes.services import class_create, class_join
from tests.classes.conftest import signed_in
from tests.factories import (
    make_assignment,
    make_quiz,
    make_staff,
    take_assignment,
    take_attempt,
)

NOW = timezone.now()
URL = "/en/reports/quizzes/scoped/"


@pytest.fixture
def world(db):
    """Two classes of two coaches (plain accounts, no report permission), a learner in each,
    and a learner on their own; each has taken the quiz, the class learners for their class
    after a self-study attempt of their own."""
    quiz = make_quiz(slug="scoped", questions=4)
    coach_a, coach_b = User.objects.create_user("coach-a"), User.objects.create_user("coach-b")
    class_a = class_create(name="A", instructor=coach_a)
    class_b = class_create(name="B", instructor=coach_b)
    learners = {name: User.objects.create_user(name) for name in ("ann", "bob", "sam")}
    class_join(klass=class_a, learner=learners["ann"])
    class_join(klass=class_b, learner=learners["bob"])
    attempts = {}
    for name, learner in learners.items():
        attempts[f"{name}-self"] = take_attempt(
            quiz,
            learner,
            is_first=True,
            right=1,
            started=NOW - timedelta(days=4),
            finished=NOW - timedelta(days=3),
        )
    for name, klass in (("ann", class_a), ("bob", class_b)):
        assignment = make_assignment(klass, quiz)
        attempts[name] = take_assignment(
            assignment, learners[name], right=3, started=NOW - timedelta(days=1), finished=NOW
        )
    return {
        "quiz": quiz,
        "coach_a": coach_a,
        "class_a": class_a,
        "class_b": class_b,
        "attempts": attempts,
        "learners": learners,
    }


def csv_learners(client, query: dict | None = None) -> list[str]:
    response = client.get(URL + "attempts.csv", {"attempts": "all", **(query or {})})
    assert response.status_code == 200
    body = b"".join(response.streaming_content).decode("utf-8-sig")
    return sorted(row[0] for row in list(csv.reader(io.StringIO(body)))[1:])


def review(attempt) -> str:
    return f"{URL}attempts/{attempt.public_id}/"


def test_the_site_wide_permission_reads_every_learner(world):
    reader = signed_in(make_staff("reporter", "Instructors"))
    assert csv_learners(reader) == ["ann", "ann", "bob", "bob", "sam"]
    for attempt in world["attempts"].values():
        assert reader.get(review(attempt)).status_code == 200
    # Any class's report; its attempts at its assignments, not its learners' self-study.
    assert csv_learners(reader, {"class": world["class_b"].pk}) == ["bob"]
    page = reader.get(URL, {"class": world["class_b"].pk}).content.decode()
    assert "The learners of the class <strong>B</strong>" in page


def test_a_class_instructor_reads_their_own_learners_only(world):
    coach = signed_in(world["coach_a"])
    assert coach.get(URL).status_code == 200
    assert "You see the learners of your classes only." in coach.get(URL).content.decode()
    assert csv_learners(coach) == ["ann", "ann"]
    assert coach.get(review(world["attempts"]["ann"])).status_code == 200
    assert coach.get(review(world["attempts"]["ann-self"])).status_code == 200
    for foreign in ("bob", "bob-self", "sam-self"):
        assert coach.get(review(world["attempts"][foreign])).status_code == 404
    assert csv_learners(coach, {"class": world["class_a"].pk}) == ["ann"]
    for path in ("", "attempts/", "attempts.csv", "questions.csv"):
        assert coach.get(URL + path, {"class": world["class_b"].pk}).status_code == 404
    listed = coach.get(URL + "attempts/", {"attempts": "all"}).content.decode()
    assert "ann" in listed and "bob" not in listed and "sam" not in listed
    index = coach.get("/en/reports/").content.decode()
    assert "Data parallelism quiz" in index  # Assigned to their class.


def test_a_removed_learner_leaves_the_instructors_reports(world):
    world["class_a"].memberships.all().delete()
    coach = signed_in(world["coach_a"])
    assert csv_learners(coach) == []
    assert coach.get(review(world["attempts"]["ann"])).status_code == 404


def test_a_class_report_counts_each_learners_first_attempt_at_the_assignment(world):
    """Ann's first attempt at the quiz was self-study: the class's report, by default the
    first attempts, counts her first at its assignment."""
    coach = signed_in(world["coach_a"])
    response = coach.get(URL + "attempts.csv", {"class": world["class_a"].pk})
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    assert [row[0] for row in rows[1:]] == ["ann"]
    assert float(rows[1][5]) == 75


def test_editors_learners_and_visitors_see_no_grades(client, world):
    editor = signed_in(make_staff("writer", "Editors"))
    learner = signed_in(world["learners"]["ann"])
    attempt = world["attempts"]["ann"]
    for reader in (editor, learner):
        for url in ("/en/reports/", URL, URL + "attempts.csv", review(attempt)):
            assert reader.get(url).status_code == 403
        assert reader.get(f"/en/classes/{world['class_a'].pk}/gradebook/").status_code == 404
    for url in (
        "/en/reports/",
        URL,
        review(attempt),
        f"/en/classes/{world['class_a'].pk}/gradebook/",
    ):
        assert client.get(url).status_code == 302


def test_a_bad_class_filter_is_refused(world):
    reader = signed_in(make_staff("reporter", "Instructors"))
    assert reader.get(URL, {"class": "abc"}).status_code == 400
    assert reader.get(URL + "attempts.csv", {"class": "-1"}).status_code == 400
    assert reader.get(URL, {"class": "99999999"}).status_code == 404
