"""A matching question as a learner answers it, in each language, and as answers regrade."""

from decimal import Decimal

import pytest

from quizzes.learning.services import answers_regrade
from quizzes.models import Answer, Choice
from tests.factories import (
    answer,
    answer_matches,
    choice_of,
    make_matching,
    make_quiz,
    question_url,
    results_url,
    start,
)


@pytest.fixture
def collectives(guide):
    quiz = make_quiz(slug="collectives", questions=2, guide=guide)
    make_matching(quiz, 1)
    return quiz


def _choices(quiz) -> list[Choice]:
    """The four choices of question 1: three pairs and a distractor."""
    return list(quiz.questions.get(position=1).choices.order_by("position"))


def _finish(client, attempt, quiz, lang: str = "en") -> str:
    """Answer question 2 and return the results page."""
    answer(client, attempt, 2, choice_of(quiz, 2, correct=True), lang)
    return client.get(results_url(attempt, lang)).content.decode()


def _options(page: str, left: Choice, choices: list[Choice]) -> list[Choice]:
    """The right items the select box of `left` lists, in the page's order."""
    box = page[page.index(f'id="match-{left.pk}"') :]
    box = box[: box.index("</select>")]
    listed = [choice for choice in choices if f'value="{left.pk}:{choice.pk}"' in box]
    return sorted(listed, key=lambda choice: box.index(f'value="{left.pk}:{choice.pk}"'))


def test_each_left_item_has_a_labelled_box_of_every_right_item_in_the_attempt_s_order(
    client, collectives
):
    attempt = start(client, collectives, "fr")
    page = client.get(question_url(attempt, 1, "fr")).content.decode()
    choices = _choices(collectives)
    pairs, distractor = choices[:3], choices[3]
    for left in pairs:
        assert f'<label class="matching-text" for="match-{left.pk}">{left.text_fr}</label>' in page
        assert f'<option value="{left.pk}:" selected>Choisir…</option>' in page
        assert sorted(_options(page, left, choices), key=choices.index) == choices
    assert f'id="match-{distractor.pk}"' not in page  # A distractor is only a right item.
    assert "Chaque worker garde ses gradients" in page
    assert "Choisissez pour chaque élément celui de droite qui va avec." in page
    shown = _options(page, pairs[0], choices)
    assert all(_options(page, left, choices) == shown for left in pairs)
    assert shown != choices  # Never in the pairs' own order.
    # The same order on reload.
    again = client.get(question_url(attempt, 1, "fr")).content.decode()
    assert _options(again, pairs[0], choices) == shown


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_right_pairs_are_right_and_kept_as_the_response(client, collectives, lang):
    attempt = start(client, collectives, lang)
    a, b, c, _distractor = _choices(collectives)
    assert answer_matches(client, attempt, 1, [(a, a), (b, b), (c, c)], lang).status_code == 302
    recorded = Answer.objects.get(attempt=attempt)
    assert recorded.is_correct and recorded.credit == 1
    assert recorded.response == f"{a.pk}:{a.pk},{b.pk}:{b.pk},{c.pk}:{c.pk}"
    assert not recorded.picks.exists()
    _finish(client, attempt, collectives, lang)
    attempt.refresh_from_db()
    assert attempt.score == 2


def test_two_right_pairs_of_three_earn_two_thirds_and_the_review_gives_the_right_one(
    client, collectives
):
    attempt = start(client, collectives, "fr")
    a, b, c, distractor = _choices(collectives)
    answer_matches(client, attempt, 1, [(a, a), (b, b), (c, distractor)], "fr")
    recorded = Answer.objects.get(attempt=attempt)
    assert not recorded.is_correct and recorded.credit == Decimal("0.66667")
    page = _finish(client, attempt, collectives, "fr")
    assert page.count('tag-correct"><span aria-hidden="true">✓</span> Juste') == 2
    assert page.count('tag-wrong"><span aria-hidden="true">✗</span> Faux') == 1
    assert "La bonne\u00a0: <strong>Chaque worker reçoit chaque morceau</strong>" in page


def test_every_pair_wrong_is_wrong(client, collectives):
    attempt = start(client, collectives, "en")
    a, b, c, distractor = _choices(collectives)
    answer_matches(client, attempt, 1, [(a, b), (b, c), (c, distractor)])
    recorded = Answer.objects.get(attempt=attempt)
    assert recorded.credit == 0 and not recorded.is_correct
    page = _finish(client, attempt, collectives)
    assert page.count('tag-wrong"><span aria-hidden="true">✗</span> Wrong') == 3


def test_two_left_items_of_the_same_right_text_are_both_right_with_either(client, collectives):
    a, b, c, _distractor = _choices(collectives)
    Choice.objects.filter(pk=b.pk).update(match_en=a.match_en, match_fr=a.match_fr)
    attempt = start(client, collectives, "en")
    page = client.get(question_url(attempt, 1)).content.decode()
    assert page.count(f">{a.match_en}</option>") == 3  # Once in each box.
    answer_matches(client, attempt, 1, [(a, a), (b, a), (c, c)])
    assert Answer.objects.get().is_correct
    second = start(client, collectives, "en", start_over=True)
    answer_matches(client, second, 1, [(a, b), (b, b), (c, c)])
    assert Answer.objects.get(attempt=second).is_correct


def test_a_left_item_without_a_pick_is_refused_and_the_picks_are_kept(client, collectives):
    attempt = start(client, collectives, "fr")
    a, b, c, _distractor = _choices(collectives)
    posted = [f"{a.pk}:{b.pk}", f"{b.pk}:", f"{c.pk}:{c.pk}"]
    response = client.post(question_url(attempt, 1, "fr"), {"choice": posted})
    assert response.status_code == 400
    page = response.content.decode()
    assert "Associez chaque élément." in page
    assert f'<option value="{a.pk}:{b.pk}" selected>' in page
    assert f'<option value="{b.pk}:" selected>' in page
    assert not Answer.objects.exists()


def _foreign(quiz) -> str:
    """A choice of the quiz's other question."""
    return str(quiz.questions.get(position=2).choices.first().pk)


@pytest.mark.parametrize(
    "posted",
    [
        lambda a, b, c, other: [],
        lambda a, b, c, other: [f"{a}:{a}", f"{b}:{b}"],
        lambda a, b, c, other: [f"{a}:{a}", f"{b}:{b}", f"{c}:{c}", f"{a}:{b}"],
        lambda a, b, c, other: [f"{a}:{a}", f"{a}:{b}", f"{c}:{c}"],
        lambda a, b, c, other: [f"{a}:{a}", f"{b}:{b}", f"{c}:{other}"],
        lambda a, b, c, other: [f"{a}:{a}", f"{b}:{b}", f"{other}:{c}"],
        lambda a, b, c, other: [f"{a}:{a}", f"{b}:{b}", f"{c}:\x00"],
        lambda a, b, c, other: [f"{a}:{a}", f"{b}:{b}", f"{c}:٣"],
        lambda a, b, c, other: [f"{a}:{a}", f"{b}:{b}", f"{c}:1e9"],
        lambda a, b, c, other: [f"{n}:{n}" for n in range(1000)],
        lambda a, b, c, other: [f"{a}:{a}", f"{b}:{b}", f"{c}:{'9' * 5000}"],
        lambda a, b, c, other: [f"{a}:{a}", f"{b}:{b}", f"{'9' * 5000}:{c}"],
    ],
    ids=[
        "none",
        "too-few",
        "too-many",
        "a-left-twice",
        "a-foreign-right",
        "a-foreign-left",
        "nul",
        "arabic-indic-digit",
        "not-an-id",
        "a-thousand",
        "a-right-id-of-5000-digits",
        "a-left-id-of-5000-digits",
    ],
)
def test_what_is_not_a_pick_for_each_left_item_is_refused(client, collectives, posted):
    attempt = start(client, collectives, "en")
    a, b, c, _distractor = (choice.pk for choice in _choices(collectives))
    response = client.post(
        question_url(attempt, 1), {"choice": posted(a, b, c, _foreign(collectives))}
    )
    assert response.status_code == 400
    assert not Answer.objects.exists()


def test_a_lone_surrogate_in_the_body_is_refused_not_a_500(client, collectives):
    attempt = start(client, collectives)
    a, b, c, _distractor = _choices(collectives)
    body = f"choice={a.pk}%3A{a.pk}&choice={b.pk}%3A{b.pk}&choice={c.pk}%3A%ED%A0%80"
    response = client.post(
        question_url(attempt, 1), body, content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 400
    assert not Answer.objects.exists()


def test_a_changed_right_item_regrades_the_kept_pairs(client, collectives):
    attempt = start(client, collectives, "en")
    a, b, c, distractor = _choices(collectives)
    answer_matches(client, attempt, 1, [(a, a), (b, b), (c, distractor)])
    assert Answer.objects.get().credit == Decimal("0.66667")
    c.match_en, c.match_fr = distractor.match_en, distractor.match_fr
    c.save()
    regraded = answers_regrade(quiz=collectives)
    assert regraded.answers == 1
    assert Answer.objects.get().is_correct
