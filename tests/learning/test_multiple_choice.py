"""Multiple-choice questions: checkboxes, right only with exactly the correct picks, the
feedback of every choice, and reports and exports that count every pick; single choice and
true-or-false questions take exactly one value."""

import csv
import io

import pytest

from quizzes.models import Answer, AnswerChoice
from quizzes.reports.selectors import ReportFilter, item_analysis
from tests.factories import (
    answer,
    answer_picks,
    choice_of,
    make_multiple,
    make_quiz,
    question_url,
    start,
)
from tests.reports.report_data import instructor


@pytest.fixture
def mc_quiz(guide):
    quiz = make_quiz(questions=2, guide=guide)
    make_multiple(quiz, 1)
    return quiz


def choices(quiz, number):
    return list(quiz.questions.get(position=number).choices.order_by("position"))


def test_the_question_shows_checkboxes_in_a_fieldset_with_the_instruction(client, mc_quiz):
    attempt = start(client, mc_quiz)
    page = client.get(question_url(attempt, 1)).content.decode()
    assert page.count('type="checkbox"') == 4 and 'type="radio"' not in page
    assert '<fieldset aria-labelledby="prompt" aria-describedby="choice-instruction">' in page
    assert '<div class="prompt rich" id="prompt"><p>Question 1 prompt</p>\n</div>' in page
    assert "Select all that apply." in page
    assert "right only when it picks exactly the correct choices" in page
    assert 'aria-describedby="choice-instruction"' in page
    french = client.get(question_url(attempt, 1, "fr")).content.decode()
    assert "Cochez toutes les réponses justes." in french


def test_exactly_the_correct_picks_are_right(client, mc_quiz):
    attempt = start(client, mc_quiz)
    first, second, *_ = choices(mc_quiz, 1)
    assert answer_picks(client, attempt, 1, [second, first]).status_code == 302
    recorded = Answer.objects.get(attempt=attempt)
    assert recorded.is_correct and recorded.choice is None
    assert set(AnswerChoice.objects.filter(answer=recorded).values_list("choice", flat=True)) == {
        first.pk,
        second.pk,
    }


@pytest.mark.parametrize("picked", [[0], [0, 1, 2], [2, 3]], ids=["too-few", "too-many", "wrong"])
def test_any_other_set_of_picks_is_wrong(client, mc_quiz, picked):
    attempt = start(client, mc_quiz)
    all_choices = choices(mc_quiz, 1)
    answer_picks(client, attempt, 1, [all_choices[i] for i in picked])
    recorded = Answer.objects.get(attempt=attempt)
    assert not recorded.is_correct
    assert recorded.picks.count() == len(picked)
    # The one choice of an answer with one pick is kept on the answer too (Answer.choice).
    assert recorded.choice_id == (all_choices[0].pk if picked == [0] else None)


def test_the_feedback_marks_every_choice_and_gives_the_picked_ones_feedback(client, mc_quiz):
    attempt = start(client, mc_quiz)
    first, second, third, _fourth = choices(mc_quiz, 1)
    answer_picks(client, attempt, 1, [second, third])
    page = client.get(question_url(attempt, 1)).content.decode()
    assert "Not quite." in page
    assert page.count(">Ticked<") == 2 and page.count(">Not ticked<") == 2
    assert page.count(">Correct choice<") == 2 and page.count(">Wrong choice<") == 2
    assert "Q1 feedback 2" in page  # Choice 2's feedback: it was picked.


def test_no_pick_is_refused(client, mc_quiz):
    attempt = start(client, mc_quiz)
    response = client.post(question_url(attempt, 1), {})
    assert response.status_code == 400
    assert "Choose an answer." in response.content.decode()
    assert not Answer.objects.exists()


def test_a_refused_answer_keeps_the_boxes_ticked(client, mc_quiz):
    attempt = start(client, mc_quiz)
    first, second, *_ = choices(mc_quiz, 1)
    response = client.post(question_url(attempt, 1), {"choice": [first.pk, "999999"]})
    assert response.status_code == 400
    page = response.content.decode()
    assert f'value="{first.pk}" id="choice-{first.pk}" checked' in page
    assert f'value="{second.pk}" id="choice-{second.pk}">' in page


@pytest.mark.parametrize("kind", ["single", "true_false"])
def test_a_one_answer_question_refuses_two_values(client, quiz, kind):
    quiz.questions.filter(position=1).update(kind=kind)
    attempt = start(client, quiz)
    right, wrong = choice_of(quiz, 1, correct=True), choice_of(quiz, 1, correct=False)
    response = client.post(question_url(attempt, 1), {"choice": [right.pk, wrong.pk]})
    assert response.status_code == 400
    assert "This question takes one answer" in response.content.decode()
    assert not Answer.objects.exists() and not AnswerChoice.objects.exists()
    assert answer(client, attempt, 1, right).status_code == 302


def _take(client, quiz, picks_by_question):
    attempt = start(client, quiz)
    for number, picked in enumerate(picks_by_question, 1):
        answer_picks(client, attempt, number, [choices(quiz, number)[i - 1] for i in picked])
    client.cookies.clear()  # The next learner.
    return attempt


@pytest.fixture
def mc_reported(client, mc_quiz):
    """Three learners: Q1 (multiple, 1 and 2 right) picks 1+2, 1, 2+3; Q2 picks 1, 2, 1.

    Q1 right for the first only (facility 1/3); picks of Q1: choice 1 twice, choice 2
    twice, choice 3 once, over three answers."""
    _take(client, mc_quiz, [(1, 2), (1,)])
    _take(client, mc_quiz, [(1,), (2,)])
    _take(client, mc_quiz, [(2, 3), (1,)])
    return mc_quiz


def test_reports_count_every_pick(mc_reported):
    items = item_analysis(mc_reported, ReportFilter())
    q1 = items.questions[0]
    assert q1.overall.n == 3
    assert q1.overall.facility == pytest.approx(1 / 3)
    assert [c.count for c in q1.choices] == [2, 2, 1, 0]
    assert [c.share for c in q1.choices] == pytest.approx([2 / 3, 2 / 3, 1 / 3, 0])
    q2 = items.questions[1]
    assert [c.count for c in q2.choices] == [2, 1, 0, 0]
    # Scores (Q1, Q2): (1, 1), (0, 0), (0, 1): Q1's x 1 0 0 against rest 1 0 1.
    assert q1.overall.discrimination == pytest.approx(50.0)


def test_the_attempts_csv_carries_every_pick(client, mc_reported):
    client.force_login(instructor())
    response = client.get(f"/en/reports/quizzes/{mc_reported.slug}/attempts.csv")
    body = b"".join(response.streaming_content).decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(body)))
    assert [row[10:13] for row in rows[1:]] == [
        ["Q1 choice 1 | Q1 choice 2", "right", "1"],
        ["Q1 choice 1", "wrong", "0"],
        ["Q1 choice 2 | Q1 choice 3", "wrong", "0"],
    ]
    assert [row[13] for row in rows[1:]] == ["Q2 choice 1", "Q2 choice 2", "Q2 choice 1"]


def test_the_questions_csv_counts_every_pick(client, mc_reported):
    client.force_login(instructor())
    response = client.get(f"/en/reports/quizzes/{mc_reported.slug}/questions.csv")
    body = b"".join(response.streaming_content).decode("utf-8-sig")
    header, q1, _q2 = list(csv.reader(io.StringIO(body)))
    picked = header.index("Choice 1 picked")
    assert q1[picked] == "2" and q1[picked + 4] == "2" and q1[picked + 8] == "1"


def test_a_refused_multiple_choice_answer_describes_the_fieldset_by_both(client, mc_quiz):
    attempt = start(client, mc_quiz)
    page = client.post(question_url(attempt, 1), {}).content.decode()
    assert 'aria-describedby="choice-instruction choice-error"' in page
    single = client.post(question_url(attempt, 1), {"choice": "x"})
    assert single.status_code == 400
