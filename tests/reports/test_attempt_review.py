"""An instructor opens one learner's attempt from the report: the attempts list and the
review of an attempt, as the learner took it."""

from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.utils import timezone, translation
from django.utils.translation import gettext

from quizzes.learning.services import answer_record, attempt_start
from quizzes.models import Attempt
from quizzes.reports import selectors as reports
from quizzes.snapshots import cache
from tests.factories import content_of, make_ordering, make_quiz, take_attempt
from tests.reports.report_data import FIRST_DAY, URL, instructor, take


def review_url(attempt: Attempt, lang: str = "en") -> str:
    return f"/{lang}/reports/quizzes/{attempt.quiz.slug}/attempts/{attempt.public_id}/"


def preview_answered(quiz) -> Attempt:
    """An editor's preview with an answer, which the reports never count."""
    attempt = attempt_start(quiz=quiz, user=None, learner_key="editor", kind="preview")
    content = content_of(quiz)
    question = content.questions[0]
    answer_record(attempt=attempt, quiz=content, question=question, choices=question.choices[:1])
    return attempt


def test_the_report_links_to_the_attempts_list(instructor_client, hand_quiz):
    html = instructor_client.get(URL, {"attempts": "all"}).content.decode()
    assert 'href="/en/reports/quizzes/dp-quiz/attempts/?attempts=all"' in html


def test_the_list_links_each_counted_attempt_to_its_review(instructor_client, hand_quiz):
    preview = preview_answered(hand_quiz)
    response = instructor_client.get(URL + "attempts/", {"attempts": "all"})
    html = response.content.decode()
    assert response.status_code == 200
    counted = Attempt.objects.filter(quiz=hand_quiz, kind="quiz", answers__isnull=False)
    counted = counted.distinct()
    assert counted.count() == 9
    for attempt in counted:
        assert review_url(attempt) in html
    assert str(preview.public_id) not in html
    assert "Ana Alves" in html and "Anonymous learner" in html
    assert html.count(">Retry<") == 2 and html.count(">First attempt<") == 7
    # By default, as the report: each learner's first attempt only.
    default = instructor_client.get(URL + "attempts/").content.decode()
    assert default.count(">First attempt<") == 7 and ">Retry<" not in default


def test_previews_are_left_out_of_the_index_the_report_and_the_list(instructor_client, hand_quiz):
    def figures() -> tuple:
        (overview,) = reports.quizzes_overview()
        summary = reports.quiz_summary(hand_quiz, reports.ReportFilter())
        listed = reports.attempts_list(hand_quiz, reports.ReportFilter()).count()
        return overview.started, overview.completed, summary.started, summary.completed, listed

    before = figures()
    preview = preview_answered(hand_quiz)
    assert figures() == before == (7, 6, 7, 6, 7)
    for path in ["/en/reports/", URL, URL + "attempts/"]:
        html = instructor_client.get(path).content.decode()
        assert str(preview.public_id) not in html and ">8<" not in html


def test_the_list_is_paginated(instructor_client, db):
    quiz = make_quiz(questions=1, choices=2)
    for minute in range(51):
        take(quiz, user=None, lang="en", picks=[1], when=FIRST_DAY + timedelta(minutes=minute))
    first = instructor_client.get(URL + "attempts/").content.decode()
    second = instructor_client.get(URL + "attempts/", {"page": 2}).content.decode()
    assert first.count("/attempts/") - second.count("/attempts/") == 49
    assert "Page 1 of 2" in first and "Page 2 of 2" in second
    assert 'rel="next"' in first and 'rel="prev"' in second


def test_review_shows_the_learner_the_picks_verdicts_and_right_answers(
    instructor_client, hand_quiz
):
    # A (Ana Alves, English): picks 2 1 1 1 2, score 3 of 5.
    attempt = Attempt.objects.get(user__username="ana", is_first=True)
    Attempt.objects.filter(pk=attempt.pk).update(
        completed_at=attempt.started_at + timedelta(minutes=4, seconds=5)
    )
    response = instructor_client.get(review_url(attempt))
    html = response.content.decode()
    assert response.status_code == 200
    assert "Attempt of Ana Alves" in html and "First attempt" in html
    anonymous = Attempt.objects.filter(user=None, quiz=hand_quiz).first()
    assert (
        "Attempt of an anonymous learner"
        in instructor_client.get(review_url(anonymous)).content.decode()
    )
    assert "4 min 05 s" in html
    assert "3 / 5 (60%)" in html
    assert html.count("The learner’s pick") == 5
    assert html.count("Correct answer") == 5
    assert html.count("✓</span> Right") == 3 and html.count("✗</span> Wrong") == 2
    assert '<span lang="en">Q1 choice 2</span>\n              <strong class="tag">' in html


def test_review_is_in_the_attempts_language(instructor_client, hand_quiz):
    # C (French): picks 3 2 2 1 2.
    attempt = Attempt.objects.get(user__username="cy")
    html = instructor_client.get(review_url(attempt)).content.decode()
    assert "Énoncé de la question 1" in html and "Question 1 prompt" not in html
    assert '<span lang="fr">Q1 choix 3</span>' in html
    assert "Q1 choice 3" not in html
    assert "<dd>French</dd>" in html  # The interface stays in the page's language.


def test_french_review_page(instructor_client, hand_quiz):
    attempt = Attempt.objects.get(user__username="ana", is_first=True)
    html = instructor_client.get(review_url(attempt, "fr")).content.decode()
    assert "Tentative\u00a0: Ana Alves" in html  # Never « de Ana »: no elision to get wrong.
    assert "Question 1 prompt" in html  # The attempt was in English.
    assert "Bonne réponse" in html


def test_review_shows_an_unfinished_attempts_unanswered_questions(instructor_client, hand_quiz):
    attempt = Attempt.objects.get(user__username="gina")
    html = instructor_client.get(review_url(attempt)).content.decode()
    assert html.count("Not answered") == 3
    assert "2 of 5 answered" in html and "not finished" in html


def test_review_keeps_the_order_the_attempt_showed(instructor_client, db):
    quiz = make_quiz(questions=1, choices=4, shuffle_choices=True)
    attempt = take(quiz, user=None, lang="en", picks=[1], when=FIRST_DAY)
    content = content_of(quiz)
    shown = sorted(content.questions[0].choices, key=attempt.choice_order_key)
    html = instructor_client.get(review_url(attempt)).content.decode()
    positions = [html.index(f">{choice.text}<") for choice in shown]
    assert positions == sorted(positions)


def test_a_question_added_since_is_not_part_of_a_finished_attempt(instructor_client, hand_quiz):
    attempt = Attempt.objects.get(user__username="ana", is_first=True)
    question = hand_quiz.questions.create(position=6, prompt_en="Added later")
    question.choices.create(position=1, text_en="Later choice", is_correct=True)
    html = instructor_client.get(review_url(attempt)).content.decode()
    assert "Added later" not in html and "Question 5" in html


def test_a_timed_out_attempt_shows_the_questions_its_time_left_unanswered(instructor_client, db):
    quiz = make_quiz(questions=3)
    started = timezone.now() - timedelta(hours=1)
    deadline = started + timedelta(minutes=10)
    attempt = take_attempt(
        quiz,
        User.objects.create_user("ada"),
        right=1,
        answered=1,
        started=started,
        deadline=deadline,
    )
    Attempt.objects.filter(pk=attempt.pk).submit_overdue(timezone.now())
    quiz.questions.create(position=4, prompt_en="Added later")
    html = instructor_client.get(review_url(attempt)).content.decode()
    assert html.count("Not answered") == 2 and "Added later" not in html
    assert "its time ran out: submitted by the server" in html
    assert "1 / 3" in html


def test_an_instructor_may_open_a_preview(instructor_client, hand_quiz):
    preview = preview_answered(hand_quiz)
    html = instructor_client.get(review_url(preview)).content.decode()
    assert "Editor’s preview" in html


@pytest.mark.parametrize("view", ["list", "review"])
def test_only_instructors_see_attempts(client, hand_quiz, view):
    attempt = Attempt.objects.get(user__username="ana", is_first=True)
    path = URL + "attempts/" if view == "list" else review_url(attempt)
    assert client.get(path).status_code == 302  # To sign in.
    client.force_login(User.objects.get(username="ana"))
    assert client.get(path).status_code == 403
    client.force_login(instructor())
    assert client.get(path).status_code == 200


def test_review_of_an_unknown_attempt_or_another_quizs_is_not_found(instructor_client, hand_quiz):
    other = make_quiz(slug="other", questions=1)
    elsewhere = take(other, user=None, lang="en", picks=[1], when=FIRST_DAY)
    assert instructor_client.get(URL + f"attempts/{elsewhere.public_id}/").status_code == 404
    assert instructor_client.get(URL + "attempts/" + "0" * 32 + "/").status_code == 404
    assert instructor_client.get("/en/reports/quizzes/nope/attempts/").status_code == 404
    assert instructor_client.get(URL + "attempts/", {"date_to": "nope"}).status_code == 400


@pytest.mark.parametrize("questions", [2, 12])
def test_review_and_list_queries_do_not_grow(client, db, questions, django_assert_num_queries):
    quiz = make_quiz(questions=questions, choices=4)
    attempts = [
        take(quiz, user=None, lang="en", picks=[2] * questions, when=FIRST_DAY) for _ in range(3)
    ]
    client.force_login(instructor())
    cache.clear()
    client.get(review_url(attempts[0]))  # The kept content, read once per process.
    url = review_url(attempts[1])
    # session, user, the user's and their groups' permissions, quiz, attempt, picks
    with django_assert_num_queries(7):
        assert client.get(url).status_code == 200
    # session, user, permissions (2), quiz, count, page
    with django_assert_num_queries(7):
        assert client.get(URL + "attempts/").status_code == 200


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_review_shows_an_ordering_answer_in_the_learners_order(instructor_client, guide, lang):
    quiz = make_quiz(slug="steps", questions=1, guide=guide)
    question = make_ordering(quiz, 1)
    a, b, c, d = question.choices.order_by("position")
    with translation.override(lang):
        attempt = attempt_start(quiz=quiz, user=None, learner_key="someone")
    content = content_of(quiz)
    response = f"{b.pk},{a.pk},{c.pk},{d.pk}"
    answer_record(
        attempt=attempt, quiz=content, question=content.questions[0], choices=(), response=response
    )
    html = instructor_client.get(review_url(attempt, lang)).content.decode()
    with translation.override(lang):
        belongs = gettext("Belongs at position %(position)s")
        in_place = gettext("In its place")
    shown = [html.index(f">{item.text_en if lang == 'en' else item.text_fr}<") for item in (b, a)]
    assert shown == sorted(shown)  # In the learner's order.
    assert html.count(belongs % {"position": 2}) == 1 and html.count(belongs % {"position": 1}) == 1
    assert html.count(in_place) == 2
    assert "✗</span>" in html


def test_seeded_attempts_answer_an_ordering_question_by_an_order(db, guide):
    quiz = make_quiz(slug="steps", questions=3, guide=guide)
    question = make_ordering(quiz, 2)
    call_command("seedattempts", quiz.slug, count=30, seed=7, stdout=StringIO())
    answers = question.answers.all()
    assert answers.exists() and not answers.filter(picks__isnull=False).exists()
    right = ",".join(str(pk) for pk in question.choices.values_list("pk", flat=True))
    for answer in answers:
        assert answer.is_correct == (answer.response == right)
        assert sorted(answer.response.split(",")) == sorted(right.split(","))
