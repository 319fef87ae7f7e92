"""A numerical question as a learner answers it, in each language, and as answers regrade."""

from decimal import Decimal

import pytest

from quizzes.learning.services import answers_regrade
from quizzes.models import Answer
from tests.factories import (
    answer_number,
    make_numerical,
    make_quiz,
    question_url,
    results_url,
    start,
)

NBSP = "\u00a0"
# As tests/learning/test_query_counts.py counts it: the only question's answer also scores.
LAST_ANSWER_POST = 8


@pytest.fixture
def numbers(guide):
    quiz = make_quiz(slug="numbers", questions=1, guide=guide)
    make_numerical(quiz, 1)
    return quiz


def test_the_page_asks_for_a_number_in_a_labelled_text_input(client, numbers):
    attempt = start(client, numbers, "fr")
    page = client.get(question_url(attempt, 1, "fr")).content.decode()
    assert 'inputmode="decimal"' in page and 'name="choice"' in page
    assert '<label for="number-answer">Votre réponse (un nombre)</label>' in page
    assert 'type="radio"' not in page


@pytest.mark.parametrize(
    ("lang", "typed", "shown"),
    [("fr", "1 024", f"1{NBSP}024"), ("fr", "1024,0", f"1{NBSP}024"), ("en", "1,024", "1,024")],
)
def test_the_right_number_as_the_language_writes_it_is_right(client, numbers, lang, typed, shown):
    attempt = start(client, numbers, lang)
    response = answer_number(client, attempt, 1, typed, lang)
    assert response.status_code == 302
    assert Answer.objects.get(attempt=attempt).is_correct
    page = client.get(question_url(attempt, 1, lang)).content.decode()
    assert f"<span>{shown}</span>" in page  # The learner's number.
    assert f'<span>{shown}</span> <strong class="tag tag-correct">' in page  # The accepted value,
    assert "±" not in page  # exactly: no "± 0".
    attempt.refresh_from_db()
    assert attempt.score == 1


def test_a_known_mistake_shows_its_feedback(client, numbers):
    attempt = start(client, numbers, "fr")
    answer_number(client, attempt, 1, "32", "fr")
    recorded = Answer.objects.get(attempt=attempt)
    assert not recorded.is_correct and recorded.choice.text_en == "32"
    page = client.get(results_url(attempt, "fr")).content.decode()
    assert "Le micro-lot d’un seul nœud." in page
    assert f'<span>1{NBSP}024</span> <strong class="tag tag-correct">' in page


def test_a_number_that_matches_nothing_is_wrong_without_feedback(client, numbers):
    attempt = start(client, numbers)
    answer_number(client, attempt, 1, "7")
    recorded = Answer.objects.get(attempt=attempt)
    assert (recorded.is_correct, recorded.choice, recorded.response) == (False, None, "7")
    page = client.get(question_url(attempt, 1)).content.decode()
    assert "<span>7</span>" in page and "micro-batch" not in page


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("", {"en": "Type a number.", "fr": "Tapez un nombre."}),
        ("NaN", {"en": "is not a number", "fr": "n’est pas un nombre"}),
        ("inf", {"en": "is not a number", "fr": "n’est pas un nombre"}),
        ("1e999", {"en": "too large or too small", "fr": "trop grand ou trop petit"}),
        ("9" * 10_000, {"en": "too long", "fr": "trop long"}),
        ("١٠٢٤", {"en": "digits 0 to 9", "fr": "chiffres de 0 à 9"}),
    ],
)
def test_what_can_t_be_read_is_refused_and_records_nothing(client, numbers, lang, typed, says):
    attempt = start(client, numbers, lang)
    response = answer_number(client, attempt, 1, typed, lang)
    assert response.status_code == 400
    page = response.content.decode()
    assert says[lang] in page and 'aria-invalid="true"' in page
    assert not Answer.objects.exists()


def test_a_refused_number_is_there_to_correct(client, numbers):
    attempt = start(client, numbers)
    page = answer_number(client, attempt, 1, "1024 samples").content.decode()
    assert 'value="1024 samples"' in page


def test_two_numbers_for_one_are_refused(client, numbers):
    attempt = start(client, numbers)
    response = client.post(question_url(attempt, 1), {"choice": ["1024", "32"]})
    assert response.status_code == 400 and not Answer.objects.exists()


def test_regrading_matches_the_numbers_again_against_the_values_as_they_are(client, numbers):
    question = numbers.questions.get()
    scores = {}
    for typed in ("1024", "1000", "32", "7"):
        attempt = start(client, numbers, start_over=True)
        answer_number(client, attempt, 1, typed)
        scores[typed] = attempt
    right = question.choices.get(position=1)
    right.tolerance = 30
    right.save()
    regraded = answers_regrade(questions=numbers.questions.all())
    assert (regraded.answers, regraded.attempts) == (1, 1)
    graded = {a.response: (a.is_correct, a.choice_id) for a in Answer.objects.all()}
    assert graded == {
        "1024": (True, right.pk),
        "1000": (True, right.pk),  # Within 30 of 1024 now.
        "32": (False, question.choices.get(position=2).pk),
        "7": (False, None),
    }
    assert Answer.objects.get(response="1000").picks.get().choice == right
    scores["1000"].refresh_from_db()
    assert scores["1000"].score == 1
    assert answers_regrade(questions=numbers.questions.all()).answers == 0  # Settled.


@pytest.fixture
def memory(numbers):
    """The numerical question in MB, with GB (1/1024) too; 1,024 MB is right, give or take
    1 %; 32 MB a known mistake."""
    question = numbers.questions.get()
    question.units.create(position=1, name="MB", multiplier=1)
    question.units.create(position=2, name="GB", multiplier=Decimal("0.0009765625"))
    question.choices.filter(position=1).update(tolerance=1, relative_tolerance=True)
    return numbers


@pytest.mark.parametrize(
    ("lang", "typed"),
    [("en", "1 GB"), ("en", "1GB"), ("fr", "1 024 MB"), ("fr", "1,005 GB"), ("en", "1030")],
)
def test_a_number_with_a_unit_is_graded_in_the_base_unit(client, memory, lang, typed):
    attempt = start(client, memory, lang)
    assert answer_number(client, attempt, 1, typed, lang).status_code == 302
    recorded = Answer.objects.get(attempt=attempt)
    assert recorded.is_correct
    page = client.get(question_url(attempt, 1, lang)).content.decode()
    percent = "\u202f%" if lang == "fr" else "%"
    thousand = {"en": "1,024", "fr": f"1{NBSP}024"}[lang]
    assert f"<span>{thousand}{NBSP}MB{NBSP}±{NBSP}1{percent}</span>" in page


@pytest.mark.parametrize(
    ("lang", "typed", "says"),
    [
        (
            "fr",
            "1 Go",
            "«\u00a0Go\u00a0» n’est pas une unité de cette réponse\u00a0: écrivez MB, GB.",
        ),
        ("en", "1 kg", "“kg” is not a unit of this answer: write MB, GB."),
        ("en", "1 " + "B" * 10_000, "too long"),
        ("en", "NaN GB", "is not a number"),
        ("en", "1e999 GB", "too large or too small"),
        ("en", "١ GB", "digits 0 to 9"),
    ],
)
def test_a_unit_that_is_not_the_question_s_is_refused_and_records_nothing(
    client, memory, lang, typed, says
):
    attempt = start(client, memory, lang)
    response = answer_number(client, attempt, 1, typed, lang)
    assert response.status_code == 400
    assert says in response.content.decode()
    assert not Answer.objects.exists()


def test_a_required_unit_refuses_a_number_alone_with_a_message(client, memory):
    memory.questions.update(units_required=True)
    attempt = start(client, memory, "fr")
    page = client.get(question_url(attempt, 1, "fr")).content.decode()
    assert f"Votre réponse (un nombre et son unité{NBSP}: MB, GB)" in page
    response = answer_number(client, attempt, 1, "1024", "fr")
    assert response.status_code == 400
    assert f"Donnez aussi l’unité{NBSP}: MB, GB." in response.content.decode()
    assert not Answer.objects.exists()
    assert answer_number(client, attempt, 1, "1 GB", "fr").status_code == 302
    assert Answer.objects.get().response == "1024"


def test_an_answer_with_a_unit_costs_what_a_number_alone_costs(
    client, memory, django_assert_num_queries
):
    for typed in ("1024", "1 GB", "1 kg"):
        attempt = start(client, memory, start_over=True)
        with django_assert_num_queries(LAST_ANSWER_POST if typed != "1 kg" else 1):
            answer_number(client, attempt, 1, typed)
