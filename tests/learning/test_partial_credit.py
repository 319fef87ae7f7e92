"""Partial credit: an answer's credit is its kind's grade, a fraction; an attempt's score is
the sum of its credits, and every page and report that shows scores shows that sum.

The quiz here: question 1 single choice, question 2 multiple choice with partial credit
(choices 1 and 2 right, 3 and 4 wrong), question 3 single choice. A learner who gets 1 and
3 right and ticks only choice 1 of question 2 scores 1 + 0.5 + 1 = 2.5 out of 3 (83 %).
"""

import csv
import io
import random
from decimal import Decimal

import pytest
from django.contrib.auth.models import User

from quizzes.kinds.choices import partial_grade
from quizzes.learning.services import Regraded, answer_record, answers_regrade, attempt_start
from quizzes.models import Answer, Attempt, Choice
from quizzes.reports import selectors as reports
from tests.factories import (
    answer,
    answer_picks,
    choice_of,
    content_of,
    make_multiple,
    make_quiz,
    make_staff,
    question_url,
    results_url,
    start,
)
from tests.kinds.test_kinds import ANSWER_STEP

HALF = Decimal("0.5")


@pytest.mark.parametrize(
    ("correct", "picked", "credit"),
    [
        ([True, True, False, False], [True, False, False, False], 0.5),
        ([True, True, False, False], [True, True, False, False], 1.0),
        ([True, True, False, False], [True, True, True, False], 0.5),
        ([True, True, False, False], [True, False, True, False], 0.0),
        ([True, True, False, False], [True, True, True, True], 0.0),  # Everything: nothing.
        ([True, True, False, False], [False, False, True, False], 0.0),  # Never below 0.
        ([True, True, True, False], [True, True, False, False], 2 / 3),
        ([True, True, True], [True, False, False], 1 / 3),  # No wrong choice to tick.
    ],
)
def test_each_correct_pick_earns_its_share_and_each_wrong_one_takes_one_away(
    correct, picked, credit
):
    assert partial_grade(correct, picked) == pytest.approx(credit)


@pytest.fixture
def quiz(db):
    quiz = make_quiz(questions=3, choices=4)
    question = make_multiple(quiz, 2)
    question.partial_credit = True
    question.save()
    return quiz


def half_right(client, quiz, lang: str = "en") -> Attempt:
    """Questions 1 and 3 right, question 2 half right (choice 1 of its right 1 and 2)."""
    attempt = start(client, quiz, lang)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True), lang)
    answer_picks(client, attempt, 2, [quiz.questions.get(position=2).choices.get(position=1)], lang)
    answer(client, attempt, 3, choice_of(quiz, 3, correct=True), lang)
    attempt.refresh_from_db()
    return attempt


def test_a_half_right_answer_keeps_its_credit_and_the_score_adds_the_credits(client, quiz):
    attempt = half_right(client, quiz)
    credits = list(attempt.answers.order_by("question__position").values_list("credit", flat=True))
    assert credits == [1, HALF, 1]
    half = attempt.answers.get(question__position=2)
    assert not half.is_correct
    assert (attempt.score, attempt.max_score, attempt.percent) == (Decimal("2.5"), 3, 83)
    assert attempt.passed  # 83 % of the fractional score, at a pass mark of 70 %.


def test_the_feedback_says_partly_right_with_its_share(client, quiz):
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    page = client.get(question_url(attempt, 2)).content.decode()
    assert "Each correct choice you tick earns its share of the mark" in page
    picks = [quiz.questions.get(position=2).choices.get(position=1)]
    page = answer_picks(client, attempt, 2, picks)
    page = client.get(page["Location"]).content.decode()
    assert 'class="feedback is-partial"' in page
    assert "Partly right: 50% of the mark." in page


def test_the_results_show_the_fractional_score_and_the_partly_right_line(client, quiz):
    attempt = half_right(client, quiz)
    page = client.get(results_url(attempt)).content.decode()
    assert "2.5 / 3" in page and "(83%)" in page
    assert "Partly right (50%)" in page
    assert "Partly right: 50% of the mark." in page
    assert page.count('class="is-partial"') == 1
    # A partly right answer is one to practise again.
    assert "Practise the question I missed" in page


def test_the_french_results_write_the_score_and_the_share_as_french_does(client, quiz):
    attempt = half_right(client, quiz, "fr")
    page = client.get(results_url(attempt, "fr")).content.decode()
    assert "2,5 / 3" in page and "(83\u202f%)" in page
    assert "Partiellement juste (50\u202f%)" in page
    assert "Partiellement juste\u00a0: 50\u202f% de la note." in page


def test_my_progress_shows_the_best_and_last_fractional_scores(client, quiz):
    half_right(client, quiz)
    attempt = start(client, quiz)
    for number in (1, 3):
        answer(client, attempt, number, choice_of(quiz, number, correct=number == 1))
        if number == 1:
            picks = list(quiz.questions.get(position=2).choices.filter(position__in=[1, 3]))
            answer_picks(client, attempt, 2, picks)  # 1/2 - 1/2: 0.
    page = client.get("/en/progress/").content.decode()
    assert "best 83%, last 33%" in page
    assert "2.5 / 3 (83%)" in page and "1 / 3 (33%)" in page


def test_the_answer_step_of_a_partial_credit_question_costs_the_same_queries(
    client, db, django_assert_num_queries
):
    for questions in (8, 40):
        quiz = make_quiz(slug=f"q{questions}", questions=questions)
        question = make_multiple(quiz, 1)
        question.partial_credit = True
        question.save()
        attempt = start(client, quiz)
        first = question.choices.get(position=1)
        with django_assert_num_queries(ANSWER_STEP["multiple"]):
            response = answer_picks(client, attempt, 1, [first])
        assert response.status_code == 302
        assert attempt.answers.get().credit == HALF


@pytest.fixture
def reported(quiz):
    """Four learners: one half right at question 2 (2.5), one right everywhere (3), one wrong
    at question 2 (picks 1 and 3: 0, score 2), one wrong everywhere (0)."""
    content = content_of(quiz)
    q1, q2, q3 = content.questions
    picks = [
        (q1.choices[0], (q2.choices[0],), q3.choices[0]),
        (q1.choices[0], (q2.choices[0], q2.choices[1]), q3.choices[0]),
        (q1.choices[0], (q2.choices[0], q2.choices[2]), q3.choices[0]),
        (q1.choices[1], (q2.choices[3],), q3.choices[1]),
    ]
    for number, (first, second, third) in enumerate(picks):
        user = User.objects.create_user(f"learner{number}")
        attempt = attempt_start(quiz=content, user=user)
        for question, chosen in ((q1, (first,)), (q2, second), (q3, (third,))):
            answer_record(attempt=attempt, quiz=content, question=question, choices=chosen)
    return quiz


def test_the_reports_take_facility_and_discrimination_from_the_credits(reported):
    items = reports.item_analysis(reported, reports.ReportFilter()).questions
    second = items[1].overall
    # Credits 0.5, 1, 0, 0: facility is their mean.
    assert second.facility == pytest.approx(1.5 / 4)
    # Rest-of-test scores 2, 2, 2, 0: x = .5 1 0 0, y = 2 2 2 0.
    # nΣxy - ΣxΣy = 4·3 - 1.5·6 = 3; nΣx² - (Σx)² = 4·1.25 - 2.25 = 2.75;
    # nΣy² - (Σy)² = 4·12 - 36 = 12: D = 100·3/sqrt(33) = 52.22.
    assert second.discrimination == pytest.approx(100 * 3 / 33**0.5)
    # The highest x with the highest y: Σxy max = 1·2 + .5·2 + 0 + 0 = 3: DE = 100·3/(12-9).
    assert second.efficiency == pytest.approx(100.0)
    summary = reports.quiz_summary(reported, reports.ReportFilter())
    assert summary.mean == pytest.approx((2.5 + 3 + 2 + 0) / 3 / 4 * 100)
    bands = {band.low: band.count for band in summary.histogram if band.count}
    assert bands == {0: 1, 60: 1, 80: 1, 90: 1}  # 0 %, 67 %, 83 %, 100 %.


def test_the_report_page_and_csv_give_the_fractional_scores(client, reported):
    client.force_login(make_staff("instructor", "Instructors"))
    url = f"/en/reports/quizzes/{reported.slug}/"
    page = client.get(url, {"attempts": "all"}).content.decode()
    assert "90 to 100%" in page and "0 to under 10%" in page
    attempts = client.get(url + "attempts/").content.decode()
    assert "2.5 / 3 (83%)" in attempts
    response = client.get(url + "attempts.csv")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    header = rows[0]
    half = next(row for row in rows[1:] if row[header.index("Score")] == "2.5")
    assert half[header.index("Percent")] == "83.3"
    assert half[header.index("Question 2 result")] == "partly right"
    assert half[header.index("Question 2 credit")] == "0.5"
    response = client.get(url + "questions.csv")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    second = dict(zip(rows[0], rows[2], strict=False))
    assert second["Facility"] == "0.375"


def test_a_reviewed_attempt_shows_the_partly_right_question(client, reported):
    client.force_login(make_staff("instructor", "Instructors"))
    attempt = Attempt.objects.get(user__username="learner0")
    page = client.get(
        f"/en/reports/quizzes/{reported.slug}/attempts/{attempt.public_id}/"
    ).content.decode()
    assert "2.5 / 3 (83%)" in page
    assert "Partly right (50%)" in page


def test_regrading_gives_the_credits_of_the_choices_as_they_are_now(reported):
    question = reported.questions.get(position=2)
    # Choice 3 turns right: the right ones are 1, 2, 3, the wrong one 4.
    Choice.objects.filter(question=question, position=3).update(is_correct=True)
    regraded = answers_regrade(quiz=reported)
    credits = dict(
        Answer.objects.filter(question=question).values_list("attempt__user__username", "credit")
    )
    third = Decimal("0.33333")
    assert credits == {
        "learner0": third,
        "learner1": 2 * third + Decimal("0.00001"),  # 2/3, to five places.
        "learner2": 2 * third + Decimal("0.00001"),
        "learner3": 0,
    }
    assert regraded.answers == 3
    scores = dict(Attempt.objects.values_list("user__username", "score"))
    assert scores["learner2"] == Decimal("2.66667")
    assert not Answer.objects.filter(question=question, is_correct=True).exists()
    # All or nothing again: only exactly the right choices score.
    question.partial_credit = False
    question.save()
    answers_regrade(quiz=reported)
    assert set(Answer.objects.filter(question=question).values_list("credit", flat=True)) == {0}
    assert answers_regrade(quiz=reported).answers == 0


def test_a_near_miss_in_a_single_choice_question_earns_its_choice_s_credit(client, db):
    quiz = make_quiz(questions=1)
    near = choice_of(quiz, 1, correct=False)
    Choice.objects.filter(pk=near.pk).update(credit=Decimal("0.25"))
    attempt = start(client, quiz)
    answer(client, attempt, 1, near)
    attempt.refresh_from_db()
    assert (attempt.answers.get().credit, attempt.score) == (Decimal("0.25"), Decimal("0.25"))
    page = client.get(results_url(attempt)).content.decode()
    assert '0.25 / 1 <span class="percent">(25%)</span>' in page
    assert "Partly right (25%)" in page
    Choice.objects.filter(pk=near.pk).update(credit=Decimal("0.5"))
    assert answers_regrade(quiz=quiz) == Regraded(answers=1, attempts=1)
    attempt.refresh_from_db()
    assert attempt.score == HALF


def test_regrading_in_sql_gives_what_the_kind_grades(db):
    """The regrade's SQL and the kind's `grade` agree on random picks of random questions."""
    rng = random.Random(24)
    quiz = make_quiz(questions=9, choices=5)
    for question in quiz.questions.all():
        several = question.position % 3 != 0  # Questions 3, 6 and 9: single choice.
        question.kind = "multiple" if several else "single"
        question.partial_credit = several and question.position % 2 == 1
        question.save()
        for choice in question.choices.all():
            choice.is_correct = choice.position == 1 or (several and rng.random() < 0.4)
            choice.credit = Decimal(rng.choice(["0", "0.25", "0.33333", "0.5"]))
            choice.save()
    content = content_of(quiz)
    for number in range(12):
        attempt = attempt_start(quiz=content, user=User.objects.create_user(f"u{number}"))
        for question in content.questions:
            picks = tuple(c for c in question.choices if rng.random() < 0.5) or question.choices[:1]
            if not question.type.several:
                picks = (rng.choice(question.choices),)
            answer_record(attempt=attempt, quiz=content, question=question, choices=picks)
    assert Answer.objects.filter(credit__gt=0, credit__lt=1, question__kind="single").exists()
    recorded = dict(Answer.objects.values_list("pk", "credit"))
    Answer.objects.update(credit=Decimal("0.12345"), is_correct=False)
    answers_regrade(quiz=quiz)
    assert dict(Answer.objects.values_list("pk", "credit")) == recorded
    assert all(
        answer.is_correct == (answer.credit == 1) for answer in Answer.objects.only("credit")
    )
