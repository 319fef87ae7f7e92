"""A calculated question as a learner answers it: a variant drawn per attempt, the same on
reload, resume, review and in the instructors' review, another for another attempt, and
graded against the formula's value for it."""

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from quizzes.kinds.calculated import shown
from quizzes.learning.services import answers_regrade
from quizzes.models import Answer, AttemptKind
from tests.factories import (
    answer,
    answer_number,
    choice_of,
    make_calculated,
    make_quiz,
    question_url,
    results_url,
    start,
    variant_of,
)
from tests.reports.report_data import instructor
from tests.reports.test_attempt_review import review_url

NBSP = "\u00a0"


@pytest.fixture
def batches(guide):
    quiz = make_quiz(slug="batches", questions=2, guide=guide)
    make_calculated(quiz, 1)
    return quiz


def _page(client, url: str) -> str:
    """The page without its CSRF token, which changes on every request."""
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", client.get(url).content.decode())


def _question(quiz):
    return quiz.questions.get(position=1)


def _prompt(variant: dict, lang: str) -> str:
    if lang == "fr":
        return (
            f"Avec {shown(variant['workers'], 'fr')} nœuds, un lot local de "
            f"{shown(variant['local_batch'], 'fr')} et {shown(variant['steps'], 'fr')} étapes"
        )
    return (
        f"With {variant['workers']} workers, a local batch of {variant['local_batch']} "
        f"and {variant['steps']} accumulation steps"
    )


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_prompt_shows_the_attempt_s_values_the_same_on_every_reload(client, batches, lang):
    attempt = start(client, batches, lang)
    variant = variant_of(attempt, _question(batches))
    pages = [_page(client, question_url(attempt, 1, lang)) for _ in range(2)]
    assert pages[0] == pages[1]
    assert _prompt(variant, lang) in pages[0]
    assert "{workers}" not in pages[0] and "workers * local_batch" not in pages[0]
    assert 'inputmode="decimal"' in pages[0]


def test_the_right_number_is_right_and_the_review_shows_the_values_and_the_result(client, batches):
    attempt = start(client, batches, "fr")
    variant = variant_of(attempt, _question(batches))
    typed = shown(variant["answer"], "fr")
    assert answer_number(client, attempt, 1, typed, "fr").status_code == 302
    recorded = Answer.objects.get(attempt=attempt)
    assert recorded.is_correct and recorded.response == str(variant["answer"])
    page = client.get(question_url(attempt, 1, "fr")).content.decode()
    assert f"<span>{typed}</span>" in page
    assert f'<span>{typed}</span> <strong class="tag tag-correct">' in page  # The right result,
    assert "±" not in page  # exactly.
    assert f"<code>workers</code>&nbsp;=&nbsp;{shown(variant['workers'], 'fr')}" in page
    assert f"{variant['workers']} × {variant['local_batch']} × {variant['steps']}." in page


def test_a_known_mistake_on_the_variant_shows_its_feedback_with_the_values(client, batches):
    attempt = start(client, batches)
    variant = variant_of(attempt, _question(batches))
    while variant["steps"] == 1:  # Then the mistake is the right answer, and right.
        attempt = start(client, batches, start_over=True)
        variant = variant_of(attempt, _question(batches))
    mistake = variant["workers"] * variant["local_batch"]
    answer_number(client, attempt, 1, str(mistake))
    recorded = Answer.objects.get(attempt=attempt)
    assert not recorded.is_correct and recorded.choice.position == 2
    page = client.get(question_url(attempt, 1)).content.decode()
    assert f"The {variant['steps']} accumulation steps are left out." in page


def test_another_attempt_s_right_answer_is_wrong_here_and_attempts_draw_apart(client, batches):
    question = _question(batches)
    variants = []
    for _number in range(12):
        attempt = start(client, batches, start_over=True)
        variants.append((attempt, variant_of(attempt, question)))
    answers = {variant["answer"] for _attempt, variant in variants}
    assert len(answers) > 3  # Twelve attempts, 192 variants: not all the same.
    attempt, variant = variants[-1]  # The one in progress: Start over left the others.
    other = next(v["answer"] for _a, v in variants if v["answer"] != variant["answer"])
    answer_number(client, attempt, 1, str(other))
    assert not Answer.objects.get(attempt=attempt).is_correct


def test_resume_review_and_the_instructors_review_show_the_same_variant(client, batches):
    attempt = start(client, batches)
    variant = variant_of(attempt, _question(batches))
    resumed = start(client, batches)  # Start again resumes the attempt in progress.
    assert resumed == attempt
    answer_number(client, attempt, 1, str(variant["answer"]))
    answer(client, attempt, 2, choice_of(batches, 2, correct=True))
    results = client.get(results_url(attempt)).content.decode()
    assert _prompt(variant, "en") in results
    assert (
        f'<span>{shown(variant["answer"], "en")}</span> <strong class="tag tag-correct">' in results
    )
    client.force_login(instructor())
    review = client.get(review_url(attempt)).content.decode()
    assert _prompt(variant, "en") in review
    assert f"<code>steps</code>&nbsp;=&nbsp;{variant['steps']}</p>" in review
    assert f"<span>{shown(variant['answer'], 'en')}</span>" in review  # The learner's answer.


def test_a_practice_draws_its_own_variant_and_keeps_it(client, batches):
    attempt = start(client, batches)
    variant = variant_of(attempt, _question(batches))
    answer_number(client, attempt, 1, str(variant["answer"] + 1))
    answer(client, attempt, 2, choice_of(batches, 2, correct=True))
    response = client.post(reverse("practice", kwargs={"public_id": attempt.public_id}))
    practice = batches.attempts.get(kind=AttemptKind.PRACTICE)
    assert response.status_code == 302
    drawn = variant_of(practice, _question(batches))
    pages = [_page(client, question_url(practice, 1)) for _ in range(2)]
    assert pages[0] == pages[1] and _prompt(drawn, "en") in pages[0]
    answer_number(client, practice, 1, str(drawn["answer"]))
    assert practice.answers.get().is_correct
    assert _prompt(drawn, "en") in client.get(results_url(practice)).content.decode()


def test_regrading_matches_each_answer_against_its_own_variant(batches):
    question = _question(batches)
    for _learner in range(3):
        client = Client()
        attempt = start(client, batches)
        answer_number(client, attempt, 1, str(variant_of(attempt, question)["answer"]))
    right = question.choices.get(position=1)
    right.text_en = "workers * local_batch * steps + 1"  # The editor changes the formula.
    right.save()
    regraded = answers_regrade(questions=batches.questions.all())
    assert regraded.answers == 3
    assert not Answer.objects.filter(is_correct=True).exists()
    right.text_en = "workers * local_batch * steps"
    right.save()
    assert answers_regrade(questions=batches.questions.all()).answers == 3
    assert Answer.objects.filter(is_correct=True).count() == 3


def test_the_french_page_writes_the_values_as_french_does(client, guide):
    quiz = make_quiz(slug="big", questions=1, guide=guide)
    question = make_calculated(quiz, 1)
    question.variables = [
        {"name": "workers", "values": ["1024"]},
        {"name": "local_batch", "values": ["2.5"]},
        {"name": "steps", "values": ["1"]},
    ]
    question.save()
    attempt = start(client, quiz, "fr")
    page = client.get(question_url(attempt, 1, "fr")).content.decode()
    with translation.override("fr"):
        assert f"Avec 1{NBSP}024 nœuds, un lot local de 2,5 et 1 étapes" in page


def test_the_quiz_page_names_the_variables_where_no_value_is_drawn_yet(client, batches):
    page = client.get(f"/en/quizzes/{batches.slug}/").content.decode()
    assert "With <var>workers</var> workers, a local batch of <var>local_batch</var>" in page
