"""A fixed, small number of queries per page, whatever the number of questions.

Session and user lookups included; anonymous learners have no session
(quizzes/learning/identity.py).
Learner pages read a quiz, its questions, choices and guide paths from the content each
process keeps (quizzes/snapshots.py): four more queries the first time a process shows a
quiz after an edit (COLD), none after that.
"""

import pytest

from tests.factories import (
    PROGRESS_PAGE,
    answer,
    answer_number,
    answer_order,
    answer_picks,
    choice_of,
    make_calculated,
    make_multiple,
    make_numerical,
    make_ordering,
    make_quiz,
    question_url,
    results_url,
    start,
    variant_of,
)

COLD = 4
QUESTION_PAGE = 1  # The attempt with its answers and picks; answered or not.
# In a test, the transaction of answer_record is a savepoint: two queries more.
ANSWER_POST = 7
LAST_ANSWER_POST = 8  # The last answer also scores the attempt.
RESULTS_PAGE = 1
LANDING_PAGE = 2
HOME_PAGE = 3
# Two rate limits (quizsite/ratelimit.py: old hits deleted, a hit inserted and counted,
# each); one reads the learner's attempts at the quiz: one to resume, or none and whether it
# is their first; the insert is a savepoint (two queries more), so that a racing start
# can't make a second attempt in progress.
LIMITS = 6
START_POST = LIMITS + 5


@pytest.fixture(params=[8, 40], ids=lambda n: f"{n}-questions")
def sized_quiz(request, guide):
    return make_quiz(questions=request.param, guide=guide)


def test_question_page(client, sized_quiz, django_assert_num_queries):
    attempt = start(client, sized_quiz)
    with django_assert_num_queries(QUESTION_PAGE):
        assert client.get(question_url(attempt, 1)).status_code == 200
    answer(client, attempt, 1, choice_of(sized_quiz, 1, correct=True))
    with django_assert_num_queries(QUESTION_PAGE):
        assert client.get(question_url(attempt, 1)).status_code == 200


def test_first_page_after_an_edit_reads_the_content_once(
    client, sized_quiz, django_assert_num_queries
):
    attempt = start(client, sized_quiz)
    question = sized_quiz.questions.get(position=1)
    question.save()
    with django_assert_num_queries(QUESTION_PAGE + COLD):
        assert client.get(question_url(attempt, 1)).status_code == 200
    with django_assert_num_queries(QUESTION_PAGE):
        assert client.get(question_url(attempt, 1)).status_code == 200


def test_start_post(client, sized_quiz, django_assert_num_queries):
    with django_assert_num_queries(START_POST + COLD):
        response = client.post(f"/en/quizzes/{sized_quiz.slug}/start/")
    assert response.status_code == 302
    with django_assert_num_queries(START_POST):  # Resumes the attempt in progress.
        again = client.post(f"/en/quizzes/{sized_quiz.slug}/start/")
    assert again.status_code == 302 and again["Location"] == response["Location"]


def test_the_scripts_start_post_reads_the_attempt_as_its_first_question_would(
    client, sized_quiz, django_assert_num_queries
):
    """Its response has the first open question, which the attempt's read tells."""
    start_url = f"/en/quizzes/{sized_quiz.slug}/start/"
    with django_assert_num_queries(START_POST + QUESTION_PAGE + COLD):
        response = client.post(start_url, HTTP_ACCEPT="application/json")
    with django_assert_num_queries(START_POST + QUESTION_PAGE):
        again = client.post(start_url, HTTP_ACCEPT="application/json")
    assert again.json()["next"]["url"] == response.json()["next"]["url"]
    assert "/questions/1/" in response.json()["next"]["url"]


def test_answer_post(client, sized_quiz, django_assert_num_queries):
    attempt = start(client, sized_quiz)
    choice = choice_of(sized_quiz, 1, correct=True)
    with django_assert_num_queries(ANSWER_POST):
        assert answer(client, attempt, 1, choice).status_code == 302


def test_the_scripts_answer_post_costs_the_same(client, sized_quiz, django_assert_num_queries):
    """Its response has the next question too, from the content the process keeps."""
    attempt = start(client, sized_quiz)
    choice = choice_of(sized_quiz, 1, correct=True)
    with django_assert_num_queries(ANSWER_POST):
        response = client.post(
            question_url(attempt, 1), {"choice": choice.pk}, HTTP_ACCEPT="application/json"
        )
    assert response.json()["next"]["url"] == question_url(attempt, 2)


@pytest.mark.parametrize(("typed", "picks"), [("1 024", 1), ("32", 1), ("7", 0)])
def test_a_numerical_answer_costs_the_same_or_one_less_without_a_match(
    client, sized_quiz, django_assert_num_queries, typed, picks
):
    """Its match is its pick, inserted as a choice's is; a number that matches no value
    inserts no pick."""
    make_numerical(sized_quiz, 1)
    attempt = start(client, sized_quiz, "fr")
    with django_assert_num_queries(ANSWER_POST - 1 + picks):
        assert answer_number(client, attempt, 1, typed, "fr").status_code == 302
    recorded = attempt.answers.get()
    assert (recorded.response, recorded.picks.count()) == (typed.replace(" ", ""), picks)


def test_an_ordering_answer_costs_one_less_than_a_pick(
    client, sized_quiz, django_assert_num_queries
):
    """Its order is its response: no pick inserted, whatever the number of questions."""
    question = make_ordering(sized_quiz, 1)
    attempt = start(client, sized_quiz, "fr")
    items = list(question.choices.order_by("position"))
    with django_assert_num_queries(ANSWER_POST - 1):
        assert answer_order(client, attempt, 1, items, "fr").status_code == 302
    recorded = attempt.answers.get()
    assert (recorded.is_correct, recorded.picks.count()) == (True, 0)


@pytest.mark.parametrize("right", [True, False])
def test_a_calculated_answer_costs_what_a_numerical_one_does(
    client, sized_quiz, django_assert_num_queries, right
):
    """Its variant is drawn from the attempt's id, with no query: the pages and the answer
    cost the same as a numerical question's."""
    question = make_calculated(sized_quiz, 1)
    attempt = start(client, sized_quiz, "fr")
    with django_assert_num_queries(QUESTION_PAGE):
        assert client.get(question_url(attempt, 1, "fr")).status_code == 200
    value = variant_of(attempt, question)["answer"]
    typed = str(value if right else value * 1000)  # No formula gives 1000 times it.
    with django_assert_num_queries(ANSWER_POST - (0 if right else 1)):
        assert answer_number(client, attempt, 1, typed, "fr").status_code == 302
    with django_assert_num_queries(QUESTION_PAGE):
        assert client.get(question_url(attempt, 1, "fr")).status_code == 200
    assert attempt.answers.get().is_correct is right


def _all_answered_but_the_last(client, quiz) -> tuple:
    """An attempt with every answer right but the last one's; it and the question count."""
    attempt = start(client, quiz)
    total = quiz.questions.count()
    for n in range(1, total):
        answer(client, attempt, n, choice_of(quiz, n, correct=True))
    return attempt, total


def test_last_answer_post_scores_the_attempt(client, sized_quiz, django_assert_num_queries):
    attempt, total = _all_answered_but_the_last(client, sized_quiz)
    last = choice_of(sized_quiz, total, correct=False)
    with django_assert_num_queries(LAST_ANSWER_POST):
        answer(client, attempt, total, last)
    attempt.refresh_from_db()
    assert (attempt.score, attempt.max_score) == (total - 1, total)


def test_the_scripts_last_answer_post_brings_the_results_at_no_cost(
    client, sized_quiz, django_assert_num_queries
):
    attempt, total = _all_answered_but_the_last(client, sized_quiz)
    last = choice_of(sized_quiz, total, correct=True)
    with django_assert_num_queries(LAST_ANSWER_POST):
        response = client.post(
            question_url(attempt, total), {"choice": last.pk}, HTTP_ACCEPT="application/json"
        )
    assert response.json()["next"]["url"] == results_url(attempt)
    assert f"{total} / {total}" in response.json()["next"]["main"]


def test_results_page(client, sized_quiz, django_assert_num_queries):
    attempt = start(client, sized_quiz)
    for n in range(1, sized_quiz.questions.count() + 1):
        answer(client, attempt, n, choice_of(sized_quiz, n, correct=True))
    with django_assert_num_queries(RESULTS_PAGE):
        response = client.get(results_url(attempt))
    assert response.status_code == 200


def test_landing_page(client, sized_quiz, django_assert_num_queries):
    start(client, sized_quiz)
    with django_assert_num_queries(LANDING_PAGE):
        assert client.get(f"/en/quizzes/{sized_quiz.slug}/").status_code == 200


def test_home_page(client, sized_quiz, django_assert_num_queries):
    with django_assert_num_queries(HOME_PAGE):
        assert client.get("/en/").status_code == 200


def test_multiple_choice_pages_cost_the_same(client, sized_quiz, django_assert_num_queries):
    make_multiple(sized_quiz, 1)
    attempt = start(client, sized_quiz)
    with django_assert_num_queries(QUESTION_PAGE):
        assert client.get(question_url(attempt, 1)).status_code == 200
    picks = list(sized_quiz.questions.get(position=1).choices.filter(is_correct=True))
    with django_assert_num_queries(ANSWER_POST):
        assert answer_picks(client, attempt, 1, picks).status_code == 302
    with django_assert_num_queries(QUESTION_PAGE):
        assert client.get(question_url(attempt, 1)).status_code == 200


STATUS = 1  # The learner's attempts at the quizzes a page lists (quiz_statuses).


GUIDE_PAGE = 2  # The guide path, its quizzes.


@pytest.mark.parametrize("quizzes", [2, 20])
def test_listing_pages_with_a_learner_read_the_statuses_once(
    client, guide, quizzes, django_assert_num_queries
):
    listed = [make_quiz(slug=f"quiz-{n}", questions=2, guide=guide) for n in range(quizzes)]
    for quiz in listed:
        start(client, quiz)
    with django_assert_num_queries(HOME_PAGE + STATUS):
        assert client.get("/en/").status_code == 200
    with django_assert_num_queries(GUIDE_PAGE + STATUS):
        assert client.get(f"/en/guides/{guide.slug}/").status_code == 200
    with django_assert_num_queries(LANDING_PAGE):  # The status is the resume's query.
        assert client.get(f"/en/quizzes/{listed[0].slug}/").status_code == 200


def test_guide_page_without_a_learner(client, guide, django_assert_num_queries):
    make_quiz(guide=guide)
    with django_assert_num_queries(GUIDE_PAGE):
        assert client.get(f"/en/guides/{guide.slug}/").status_code == 200


@pytest.mark.parametrize("attempts", [1, 50])
def test_progress_page(client, guide, attempts, django_assert_num_queries):
    quiz = make_quiz(questions=2, guide=guide)
    for _ in range(attempts):
        start(client, quiz, start_over=True)
    with django_assert_num_queries(PROGRESS_PAGE):
        assert client.get("/en/progress/").status_code == 200


# The attempt; its wrong answers; then, in the start's transaction (in a test, a savepoint:
# two queries more), the practice attempt in progress abandoned, the start's read and
# insert; and before all, the two rate limits.
PRACTICE_POST = LIMITS + 7


def test_practice_post_and_its_pages(client, sized_quiz, django_assert_num_queries):
    attempt = start(client, sized_quiz)
    total = sized_quiz.questions.count()
    for n in range(1, total + 1):
        answer(client, attempt, n, choice_of(sized_quiz, n, correct=n % 2 == 0))
    with django_assert_num_queries(RESULTS_PAGE):
        assert client.get(results_url(attempt) + "?mistakes=1").status_code == 200
    with django_assert_num_queries(PRACTICE_POST):
        response = client.post(f"/en/attempts/{attempt.public_id}/practice/")
    assert response.status_code == 302
    with django_assert_num_queries(QUESTION_PAGE):
        assert client.get(response["Location"]).status_code == 200


SIGNED_IN = 4  # The session, the user, and their permissions (the header's Reports link).
LEARNER_CLASSES = 1  # My progress lists a signed-in learner's classes (quizzes/classes).


def test_account_pages(client, quiz, django_user_model, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert client.get("/en/accounts/password_reset/").status_code == 200
    with django_assert_num_queries(1):  # The user with the link's id.
        assert client.get("/en/accounts/reset/MQ/set-password/").status_code == 200
    client.force_login(django_user_model.objects.create_user("ada"))
    with django_assert_num_queries(SIGNED_IN):
        assert client.get("/en/accounts/delete/").status_code == 200
    # The first time, the session is saved: it notes that the header links to My progress.
    assert ">My progress</a>" in client.get("/en/progress/").content.decode()
    with django_assert_num_queries(SIGNED_IN + PROGRESS_PAGE + LEARNER_CLASSES):
        assert client.get("/en/progress/").status_code == 200
