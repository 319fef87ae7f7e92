"""A matching question in the reports: the instructor's review of an attempt shows each left
item with the learner's right item and the right one, the report and the CSVs count its
credit per pair."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import translation

from quizzes.learning.services import answer_record, attempt_start
from quizzes.models import Attempt
from tests.factories import content_of, make_matching, make_quiz
from tests.reports.test_attempt_review import review_url
from tests.reports.test_reports_csv import read_csv


@pytest.fixture
def answered(guide) -> Attempt:
    """A finished attempt at a one-question matching quiz: two pairs of three right."""
    quiz = make_quiz(slug="collectives", questions=1, guide=guide)
    a, b, c, distractor = make_matching(quiz, 1).choices.order_by("position")
    with translation.override("fr"):
        attempt = attempt_start(quiz=quiz, user=None, learner_key="someone")
    content = content_of(quiz)
    response = f"{a.pk}:{a.pk},{b.pk}:{b.pk},{c.pk}:{distractor.pk}"
    answer_record(
        attempt=attempt, quiz=content, question=content.questions[0], choices=(), response=response
    )
    return attempt


def test_the_review_shows_each_left_item_with_the_learner_s_pick_and_the_right_one(
    instructor_client, answered
):
    html = instructor_client.get(review_url(answered, "fr")).content.decode()
    assert "Partiellement juste (67\u202f%)" in html
    assert html.count('<strong class="tag tag-correct">Juste</strong>') == 2
    wrong = (
        '<span class="tag tag-wrong">La bonne\u00a0: '
        '<span lang="fr">Chaque worker reçoit chaque morceau</span></span>'
    )
    assert html.count(wrong) == 1
    assert '<span lang="fr">Chaque worker garde ses gradients</span>' in html  # The pick.


def test_the_report_and_its_csvs_count_the_credit_per_pair(instructor_client, answered):
    url = f"/en/reports/quizzes/{answered.quiz.slug}/"
    assert instructor_client.get(url).status_code == 200
    rows = read_csv(instructor_client.get(url + "attempts.csv"))
    header, (row,) = rows[0], rows[1:]
    assert row[header.index("Question 1 result")] == "partly right"
    assert row[header.index("Question 1 credit")] == "0.66667"
    assert instructor_client.get(url + "questions.csv").status_code == 200


def test_seeded_attempts_answer_a_matching_question_by_its_pairs(db, guide):
    quiz = make_quiz(slug="collectives", questions=3, guide=guide)
    question = make_matching(quiz, 2)
    call_command("seedattempts", quiz.slug, count=30, seed=7, stdout=StringIO())
    answers = question.answers.all()
    assert answers.exists() and not answers.filter(picks__isnull=False).exists()
    content = next(kept for kept in content_of(quiz).questions if kept.pk == question.pk)
    for answer in answers:
        assert question.type.accepts(content, frozenset(), answer.response)
        assert question.type.grade(content, frozenset(), answer.response) == answer.is_correct
