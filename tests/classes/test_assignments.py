"""Assignments: an instructor assigns a quiz or a guide path under rules, changes them (kept
in a history once there are attempts) and gives overrides; a learner of the class starts
attempts under those rules, which the server keeps."""

from datetime import timedelta

import pytest
from django.utils import timezone

from quizzes.classes.services import class_join
from quizzes.models import (
    Assignment,
    AssignmentChange,
    Attempt,
    Grading,
    Override,
    ReviewShown,
)
from tests.classes.conftest import make_learner, rule_changes_shown, signed_in
from tests.factories import (
    answer,
    choice_of,
    make_quiz,
    question_url,
    results_url,
    take_assignment,
)

RULES = {
    "opens_at": "",
    "closes_at": "",
    "time_limit": "",
    "attempt_limit": "",
    "grading": "highest",
    "review": "immediately",
}


@pytest.fixture
def learner(klass):
    ada = make_learner("ada")
    class_join(klass=klass, learner=ada)
    return ada


def assign(klass, quiz, **rules) -> Assignment:
    return Assignment.objects.create(klass=klass, quiz=quiz, **rules)


def start_url(assignment, lang="en") -> str:
    return f"/{lang}/assignments/{assignment.pk}/start/"


# The instructor's side.


def test_assigning_a_quiz_with_its_rules(teacher, klass, quiz):
    form = RULES | {
        "target": f"quiz:{quiz.pk}",
        "opens_at": "2026-01-10T09:00",
        "closes_at": "2026-01-17T18:00",
        "time_limit": "30",
        "attempt_limit": "2",
        "grading": "average",
        "review": "after_close",
    }
    response = teacher.post(f"/en/classes/{klass.pk}/assignments/new/", form, follow=True)
    assert response.status_code == 200
    (made,) = Assignment.objects.filter(klass=klass)
    assert made.quiz == quiz
    assert made.time_limit == timedelta(minutes=30)
    assert made.attempt_limit == 2
    assert made.grading == Grading.AVERAGE
    assert made.review == ReviewShown.AFTER_CLOSE
    assert timezone.localtime(made.closes_at).strftime("%Y-%m-%d %H:%M") == "2026-01-17 18:00"
    page = response.content.decode()
    assert "1 assignment made." in page
    assert "Average grade" in page and "30 min" in page


def test_assigning_a_guide_path_assigns_each_of_its_published_quizzes(teacher, klass, guide):
    first = make_quiz(slug="one", guide=guide)
    second = make_quiz(slug="two", guide=guide)
    make_quiz(slug="draft", guide=guide, published=False)
    form = RULES | {"target": f"guide:{guide.pk}"}
    teacher.post(f"/en/classes/{klass.pk}/assignments/new/", form)
    assigned = set(Assignment.objects.filter(klass=klass).values_list("quiz", flat=True))
    assert assigned == {first.pk, second.pk}


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("closes_at", "2026-01-01T08:00", "An assignment closes after it opens."),
        ("attempt_limit", "0", "greater than or equal to 1"),
        ("time_limit", "1000000000", "less than or equal to 10080"),
        ("time_limit", "0", "greater than or equal to 1"),
        ("opens_at", "9999-12-31T23:59", "Give a date between 2000 and 2100."),
        ("opens_at", "2026-01-0", "Enter a valid date/time."),
        ("opens_at", "2026-01-01\x00T09:00", None),  # The site refuses any NUL: a 400 page.
        ("grading", "best\x00", None),
        ("target", "quiz:99999999999999999999", "Select a valid choice."),
    ],
)
def test_bad_rules_are_refused_with_a_message(teacher, klass, quiz, field, value, message):
    form = RULES | {"target": f"quiz:{quiz.pk}", "opens_at": "2026-01-02T08:00"}
    response = teacher.post(f"/en/classes/{klass.pk}/assignments/new/", form | {field: value})
    assert response.status_code == 400
    assert message is None or message in response.content.decode()
    assert not Assignment.objects.exists()


def test_a_review_after_the_close_needs_a_close(teacher, klass, quiz):
    form = RULES | {"target": f"quiz:{quiz.pk}", "review": "after_close"}
    response = teacher.post(f"/en/classes/{klass.pk}/assignments/new/", form)
    assert response.status_code == 400
    assert "Give a closing date" in response.content.decode()


def test_a_foreign_class_and_its_assignments_are_not_found(klass, quiz, learner):
    assignment = assign(klass, quiz)
    stranger = signed_in(make_learner("mallory"))
    for url in (
        f"/en/classes/{klass.pk}/assignments/new/",
        f"/en/classes/{klass.pk}/assignments/{assignment.pk}/",
    ):
        assert stranger.get(url).status_code == 404
    response = stranger.post(
        f"/en/classes/{klass.pk}/assignments/{assignment.pk}/overrides/",
        {"learner": learner.pk, "extra_time": "10", "extra_attempts": "0"},
    )
    assert response.status_code == 404
    assert not Override.objects.exists()


def test_an_assignment_of_another_class_is_not_found(teacher, instructor, klass, quiz):
    from quizzes.classes.services import class_create

    other = assign(class_create(name="Other", instructor=instructor), quiz)
    assert teacher.get(f"/en/classes/{klass.pk}/assignments/{other.pk}/").status_code == 404


def test_a_rule_changed_before_any_attempt_keeps_no_history(teacher, klass, quiz):
    assignment = assign(klass, quiz)
    url = f"/en/classes/{klass.pk}/assignments/{assignment.pk}/"
    teacher.post(url, RULES | {"grading": "last"})
    assignment.refresh_from_db()
    assert assignment.grading == Grading.LAST
    assert not AssignmentChange.objects.exists()


def test_rules_changed_once_attempts_exist_are_kept_in_the_history(
    teacher, instructor, klass, quiz, learner
):
    assignment = assign(klass, quiz, time_limit=timedelta(minutes=30))
    signed_in(learner).post(start_url(assignment))
    attempt = Attempt.objects.get(assignment=assignment)
    url = f"/en/classes/{klass.pk}/assignments/{assignment.pk}/"
    response = teacher.post(url, RULES | {"grading": "first", "time_limit": "45"}, follow=True)
    changes = {c.field: (c.before, c.after, c.changed_by) for c in assignment.changes.all()}
    assert changes == {
        "grading": ("highest", "first", instructor),
        "time_limit": ("30", "45", instructor),
    }
    page = response.content.decode()
    assert sorted(rule_changes_shown(page)) == [
        ("teacher", "Grading method", "Highest grade", "First attempt"),
        ("teacher", "Time limit", "30 minutes", "45 minutes"),
    ]
    attempt.refresh_from_db()  # The attempt in progress gets the new limit.
    assert attempt.deadline == attempt.started_at + timedelta(minutes=45)


def test_an_override_is_given_and_shown_with_who_gave_it(teacher, klass, quiz, learner):
    assignment = assign(klass, quiz, time_limit=timedelta(minutes=10))
    signed_in(learner).post(start_url(assignment))
    learner.first_name, learner.last_name = "Grace", "Hopper"  # Listed by name.
    learner.save()
    url = f"/en/classes/{klass.pk}/assignments/{assignment.pk}/overrides/"
    form = {"learner": learner.pk, "extra_time": "15", "extra_attempts": "1"}
    response = teacher.post(url, form, follow=True)
    override = Override.objects.get()
    assert (override.extra_time, override.extra_attempts) == (timedelta(minutes=15), 1)
    assert override.given_by.username == "teacher"
    page = response.content.decode()
    assert 'class="override-row"' in page
    row = page[page.index('class="override-row"') :]
    assert row[: row.index("</strong>")].endswith("<strong>Grace Hopper")  # By name.
    attempt = Attempt.objects.get(assignment=assignment)
    assert attempt.deadline == attempt.started_at + timedelta(minutes=25)


@pytest.mark.parametrize(
    "form",
    [
        {"extra_time": "0", "extra_attempts": "0"},
        {"extra_time": "-5", "extra_attempts": "0"},
        {"extra_time": "100000000000", "extra_attempts": "0"},
        {"extra_time": "5\x00", "extra_attempts": "0"},
        {"extra_time": "5", "extra_attempts": "1", "learner": "0"},
    ],
)
def test_a_bad_override_is_refused(teacher, klass, quiz, learner, form):
    assignment = assign(klass, quiz)
    url = f"/en/classes/{klass.pk}/assignments/{assignment.pk}/overrides/"
    response = teacher.post(url, {"learner": learner.pk} | form)
    assert response.status_code == 400
    assert not Override.objects.exists()


def test_an_override_for_someone_outside_the_class_is_refused(teacher, klass, quiz):
    assignment = assign(klass, quiz)
    outsider = make_learner("eve")
    url = f"/en/classes/{klass.pk}/assignments/{assignment.pk}/overrides/"
    response = teacher.post(url, {"learner": outsider.pk, "extra_time": "5", "extra_attempts": "0"})
    assert response.status_code == 400
    assert not Override.objects.exists()


# The learner's side.


def test_start_makes_a_numbered_attempt_with_its_deadline(klass, quiz, learner):
    closes = timezone.now() + timedelta(hours=2)
    assignment = assign(klass, quiz, time_limit=timedelta(minutes=20), closes_at=closes)
    Override.objects.create(assignment=assignment, learner=learner, extra_time=timedelta(5))
    client = signed_in(learner)
    response = client.post(start_url(assignment))
    attempt = Attempt.objects.get(assignment=assignment)
    assert response.status_code == 302 and response["Location"] == question_url(attempt, 1)
    assert attempt.number == 1
    assert attempt.deadline == closes  # The close comes before start + 20 min + 5 days.
    again = client.post(start_url(assignment))  # Resumes.
    assert again["Location"] == question_url(attempt, 1)
    assert Attempt.objects.filter(assignment=assignment).count() == 1


def test_the_deadline_is_the_start_plus_the_limit_and_the_extra_time(klass, quiz, learner):
    assignment = assign(klass, quiz, time_limit=timedelta(minutes=20))
    Override.objects.create(assignment=assignment, learner=learner, extra_time=timedelta(minutes=7))
    signed_in(learner).post(start_url(assignment))
    attempt = Attempt.objects.get(assignment=assignment)
    assert attempt.deadline == attempt.started_at + timedelta(minutes=27)


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ({"opens_at": timezone.now() + timedelta(days=1)}, "This assignment opens on"),
        (
            {
                "opens_at": timezone.now() - timedelta(days=2),
                "closes_at": timezone.now() - timedelta(days=1),
            },
            "This assignment closed on",
        ),
    ],
)
def test_start_is_refused_outside_the_dates(klass, quiz, learner, rules, message):
    assignment = assign(klass, quiz, **rules)
    response = signed_in(learner).post(start_url(assignment))
    assert response.status_code == 403
    assert message in response.content.decode()
    assert not Attempt.objects.exists()


def test_start_is_refused_to_a_learner_outside_the_class(klass, quiz):
    assignment = assign(klass, quiz)
    response = signed_in(make_learner("eve")).post(start_url(assignment))
    assert response.status_code == 403
    assert "a class you are not in" in response.content.decode()
    assert not Attempt.objects.exists()


def test_start_is_refused_past_the_attempts_allowed_and_the_extra_ones(klass, quiz, learner):
    assignment = assign(klass, quiz, attempt_limit=1)
    client = signed_in(learner)
    client.post(start_url(assignment))
    first = Attempt.objects.get(assignment=assignment)
    for number in range(1, 9):
        answer(client, first, number, choice_of(quiz, number, correct=True))
    refused = client.post(start_url(assignment))
    assert refused.status_code == 403
    assert "You have used every attempt" in refused.content.decode()
    Override.objects.create(assignment=assignment, learner=learner, extra_attempts=1)
    assert client.post(start_url(assignment)).status_code == 302
    assert list(Attempt.objects.filter(assignment=assignment).values_list("number", flat=True)) == [
        2,
        1,
    ]  # Newest first.


def test_start_needs_a_post_and_an_account(client, klass, quiz):
    assignment = assign(klass, quiz)
    assert client.get(start_url(assignment)).status_code == 405
    assert client.post(start_url(assignment))["Location"].startswith("/en/accounts/login/")
    assert client.post("/en/assignments/999999999/start/").status_code in (302, 404)


# Time limits, kept by the server.


def _timed(klass, quiz, learner, **rules):
    assignment = assign(klass, quiz, time_limit=timedelta(minutes=10), **rules)
    client = signed_in(learner)
    client.post(start_url(assignment))
    return client, Attempt.objects.get(assignment=assignment)


def _deadline_passes(attempt) -> None:
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(seconds=1))


def test_an_answer_after_the_deadline_is_not_recorded_and_submits_the_attempt(klass, quiz, learner):
    client, attempt = _timed(klass, quiz, learner)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    answer(client, attempt, 2, choice_of(quiz, 2, correct=False))
    _deadline_passes(attempt)
    late = answer(client, attempt, 3, choice_of(quiz, 3, correct=True))
    assert late.status_code == 302 and late["Location"] == results_url(attempt)
    attempt.refresh_from_db()
    assert attempt.answers.count() == 2  # Given in time: kept; the late one: not recorded.
    assert attempt.completed_at == attempt.deadline
    assert (attempt.score, attempt.max_score) == (1, 8)
    page = client.get(results_url(attempt)).content.decode()
    assert "Time ran out" in page
    assert "1 / 8" in page


def test_a_late_answer_from_the_script_gets_the_results(klass, quiz, learner):
    client, attempt = _timed(klass, quiz, learner)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    _deadline_passes(attempt)
    reply = client.post(
        question_url(attempt, 2),
        {"choice": choice_of(quiz, 2, correct=True).pk},
        headers={"accept": "application/json"},
    )
    assert reply.status_code == 200
    body = reply.json()
    assert "feedback" not in body
    assert body["next"]["url"] == results_url(attempt)
    assert "Time ran out" in body["next"]["main"]
    assert Attempt.objects.get(pk=attempt.pk).answers.count() == 1


def test_an_attempt_never_come_back_to_is_submitted_when_read(klass, quiz, learner):
    client, attempt = _timed(klass, quiz, learner)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    _deadline_passes(attempt)
    progress = client.get("/en/progress/").content.decode()
    attempt.refresh_from_db()
    assert attempt.completed_at == attempt.deadline and attempt.score == 1
    assert "1 of" not in progress or "Done" in progress
    # The question page of a finished attempt goes on to the results, which show it.
    assert client.get(results_url(attempt)).status_code == 200


def test_the_question_page_of_an_overdue_attempt_goes_to_the_results(klass, quiz, learner):
    client, attempt = _timed(klass, quiz, learner)
    _deadline_passes(attempt)
    response = client.get(question_url(attempt, 1))
    assert response.status_code == 302 and response["Location"] == results_url(attempt)
    attempt.refresh_from_db()
    assert attempt.is_finished and attempt.score == 0


def test_the_question_page_shows_the_deadline_and_the_seconds_left(klass, quiz, learner):
    client, attempt = _timed(klass, quiz, learner)
    page = client.get(question_url(attempt, 1)).content.decode()
    assert "Answers are taken until" in page
    assert 'data-seconds-left="599"' in page or 'data-seconds-left="600"' in page
    assert "countdown.js" in page
    french = client.get(question_url(attempt, 1, "fr")).content.decode()
    assert "Réponses acceptées jusqu’au" in french


def test_a_self_study_question_page_has_no_countdown(client, quiz):
    from tests.factories import start

    attempt = start(client, quiz)
    page = client.get(question_url(attempt, 1)).content.decode()
    assert "countdown" not in page


# When the review shows.


@pytest.mark.parametrize("review", [ReviewShown.NEVER, ReviewShown.AFTER_CLOSE])
def test_a_hidden_review_shows_no_verdict_answer_or_explanation(klass, quiz, learner, review):
    closes = timezone.now() + timedelta(days=1)
    assignment = assign(klass, quiz, review=review, closes_at=closes, attempt_limit=3)
    client = signed_in(learner)
    client.post(start_url(assignment))
    attempt = Attempt.objects.get(assignment=assignment)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=False))
    feedback = client.get(question_url(attempt, 1)).content.decode()
    assert "Your answer is recorded." in feedback
    assert "Explanation 1" not in feedback and "Not quite" not in feedback
    for number in range(2, 9):
        answer(client, attempt, number, choice_of(quiz, number, correct=True))
    results = client.get(results_url(attempt)).content.decode()
    assert "7 / 8" in results  # The score shows.
    assert "Explanation" not in results and "Wrong" not in results and "Practise" not in results
    assert f"/en/assignments/{assignment.pk}/start/" in results


def test_the_review_after_the_close_shows_once_closed(klass, quiz, learner):
    closes = timezone.now() + timedelta(days=1)
    assignment = assign(klass, quiz, review=ReviewShown.AFTER_CLOSE, closes_at=closes)
    client = signed_in(learner)
    client.post(start_url(assignment))
    attempt = Attempt.objects.get(assignment=assignment)
    for number in range(1, 9):
        answer(client, attempt, number, choice_of(quiz, number, correct=number > 1))
    Assignment.objects.filter(pk=assignment.pk).update(
        opens_at=timezone.now() - timedelta(days=2), closes_at=timezone.now()
    )
    results = client.get(results_url(attempt)).content.decode()
    assert "Explanation 1" in results and "Wrong" in results


# My progress.


def test_my_progress_lists_the_learner_s_assignments_and_their_state(klass, quiz, learner):
    now = timezone.now()
    other = make_quiz(slug="later")
    assign(klass, quiz, attempt_limit=2, closes_at=now + timedelta(days=3))
    assign(klass, other, opens_at=now + timedelta(days=1))
    client = signed_in(learner)
    page = client.get("/en/progress/").content.decode()
    assert page.count('class="assignment-item') == 2
    assert "0 of 2 attempts used" in page
    assert "Not open yet" in page and "Data parallelism, spring" in page
    french = client.get("/fr/progress/").content.decode()
    assert "Mes devoirs" in french
    # The lead speaks of assignments, not of a learner who has taken nothing.
    assert "Your classes’ assignments first" in page
    assert "You have not taken a quiz yet." not in page


def test_my_progress_links_an_assignment_s_last_results(klass, quiz, learner):
    assignment = assign(klass, quiz, attempt_limit=2)
    now = timezone.now()
    first = take_assignment(assignment, learner, right=2, started=now, finished=now)
    last = take_assignment(assignment, learner, right=5, started=now, finished=now)
    unfinished = assign(klass, make_quiz(slug="open"))
    take_assignment(unfinished, learner, right=1, answered=1, started=now)
    page = signed_in(learner).get("/en/progress/").content.decode()
    assert page.count(">Last results</a>") == 1
    assert f'<a href="/en/attempts/{last.public_id}/results/">Last results</a>' in page
    assert str(first.public_id) not in page


def test_a_quiz_unpublished_since_the_form_showed_it_is_refused(teacher, klass, quiz, monkeypatch):
    from quizzes.classes import selectors

    monkeypatch.setattr(selectors, "assignment_targets", lambda: [(f"quiz:{quiz.pk}", "Q")])
    quiz.is_published = False
    quiz.save()
    form = RULES | {"target": f"quiz:{quiz.pk}"}
    response = teacher.post(f"/en/classes/{klass.pk}/assignments/new/", form)
    assert response.status_code == 400
    assert "no longer published" in response.content.decode()
    assert not Assignment.objects.exists()
