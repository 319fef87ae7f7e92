"""An ordering question as a learner answers it, in each language, and as answers regrade."""

import re

import pytest
from django.core.cache import caches

from quizzes.learning.parts import Part, StepPart
from quizzes.learning.services import answers_regrade
from quizzes.models import Answer, Attempt
from tests.factories import (
    answer_order,
    content_of,
    make_ordering,
    make_quiz,
    question_url,
    results_url,
    start,
)


@pytest.fixture
def steps(guide):
    quiz = make_quiz(slug="steps", questions=1, guide=guide)
    make_ordering(quiz, 1)
    return quiz


def _items(quiz) -> list:
    return list(quiz.questions.get().choices.order_by("position"))


def _shown(page: str, items: list) -> list:
    """The items in the order the page lists them."""
    return sorted(items, key=lambda item: page.index(f'id="item-{item.pk}"'))


def test_the_page_shows_the_items_out_of_order_with_a_position_box_each(client, steps):
    attempt = start(client, steps, "fr")
    page = client.get(question_url(attempt, 1, "fr")).content.decode()
    items = _items(steps)
    shown = _shown(page, items)
    assert shown != items
    for item in items:
        assert f'<select name="choice" id="position-{item.pk}"' in page
        assert f'aria-labelledby="position-label-{item.pk} item-{item.pk}"' in page
    assert "Donnez à chaque élément sa place dans l’ordre, 1 en premier." in page
    # The same order on reload, and for the same attempt's review.
    again = client.get(question_url(attempt, 1, "fr")).content.decode()
    assert _shown(again, items) == shown


def test_no_attempt_sees_the_right_order_first(client, steps):
    items = _items(steps)
    for _ in range(12):
        attempt = start(client, steps, "en", start_over=True)
        page = client.get(question_url(attempt, 1)).content.decode()
        assert _shown(page, items) != items
        Attempt.objects.filter(pk=attempt.pk).delete()


def _preselected(page: str, items: list) -> dict:
    """Each item's position as its box shows it before the learner moves anything."""
    return {
        item.pk: int(
            re.search(
                rf'<select name="choice" id="position-{item.pk}".*?'
                rf'<option value="{item.pk}:(\d+)" selected>',
                page,
                re.DOTALL,
            )[1]
        )
        for item in items
    }


def test_attempts_in_different_orders_share_one_form_each_box_at_its_place(
    client, steps, monkeypatch
):
    """The form is kept once, in the question's order; each attempt's copy lists the items
    in its own order with each position box at the item's place, one option selected."""
    caches["default"].clear()
    rendered = []
    marked = Part.marked
    monkeypatch.setattr(Part, "marked", lambda part: rendered.append(part) or marked(part))
    items, orders = _items(steps), set()
    for _ in range(6):
        attempt = start(client, steps, "en", start_over=True)
        page = client.get(question_url(attempt, 1)).content.decode()
        shown = _shown(page, items)
        orders.add(tuple(shown))
        assert _preselected(page, items) == {item.pk: n for n, item in enumerate(shown, 1)}
        assert page.count(" selected>") == len(items)
        assert "\x00" not in page
    assert len(orders) > 1
    assert len([part for part in rendered if isinstance(part, StepPart)]) == 1


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_right_order_is_right_and_the_review_shows_it(client, steps, lang):
    attempt = start(client, steps, lang)
    items = _items(steps)
    assert answer_order(client, attempt, 1, items, lang).status_code == 302
    recorded = Answer.objects.get(attempt=attempt)
    assert recorded.is_correct
    assert recorded.response == ",".join(str(item.pk) for item in items)
    assert not recorded.picks.exists()
    attempt.refresh_from_db()
    assert attempt.score == 1


def test_a_wrong_order_is_wrong_and_the_review_says_where_each_item_belongs(client, steps):
    attempt = start(client, steps, "fr")
    items = _items(steps)
    given = [items[1], items[0], items[2], items[3]]
    answer_order(client, attempt, 1, given, "fr")
    recorded = Answer.objects.get(attempt=attempt)
    assert not recorded.is_correct
    page = client.get(results_url(attempt, "fr")).content.decode()
    assert "Votre ordre" in page and "Le bon ordre" in page
    assert page.count("Sa place est la position 2") == 1
    assert page.count("À sa place") == 2  # Items 3 and 4.


def test_two_items_at_one_position_are_refused_with_a_message(client, steps):
    attempt = start(client, steps, "en")
    items = _items(steps)
    posted = [f"{items[0].pk}:1", f"{items[1].pk}:1", f"{items[2].pk}:3", f"{items[3].pk}:4"]
    response = client.post(question_url(attempt, 1), {"choice": posted})
    assert response.status_code == 400
    page = response.content.decode()
    assert "Two items share position 1: give each item its own position." in page
    # The boxes keep what was posted.
    assert f'<option value="{items[1].pk}:1" selected>' in page
    assert not Answer.objects.exists()


@pytest.mark.parametrize(
    "posted",
    [
        [],
        ["1:1"],
        ["x:1", "y:2", "z:3", "w:4"],
        ["999999:1", "999998:2", "999997:3", "999996:4"],
        [f"{n}:{n}" for n in range(1000)],
        ["\x00:1", "1:\ufffd", "1:1e9", "1:NaN"],
        ["1:" + "9" * 5000, "2:2", "3:3", "4:4"],
    ],
    ids=[
        "none",
        "one",
        "not-ids",
        "other-ids",
        "a-thousand",
        "nul-and-replacement",
        "5000-digits",
    ],
)
def test_what_is_not_an_order_of_the_items_is_refused(client, steps, posted):
    attempt = start(client, steps, "en")
    response = client.post(question_url(attempt, 1), {"choice": posted})
    assert response.status_code == 400
    assert not Answer.objects.exists()


def test_an_out_of_range_position_is_refused(client, steps):
    attempt = start(client, steps, "en")
    items = _items(steps)
    posted = [f"{item.pk}:{n}" for n, item in enumerate(items, 2)]
    assert client.post(question_url(attempt, 1), {"choice": posted}).status_code == 400


def test_adjacent_pairs_give_a_share_kept_as_wrong_until_partial_credit(client, guide):
    quiz = make_quiz(slug="pairs", questions=1, guide=guide)
    question = make_ordering(quiz, 1, grading="pairs")
    attempt = start(client, quiz, "en")
    a, b, c, d = _items(quiz)
    answer_order(client, attempt, 1, [a, b, d, c])  # a→b right, b→d and d→c wrong: 1/3.
    recorded = Answer.objects.get(attempt=attempt)
    assert not recorded.is_correct
    kept = content_of(quiz).questions[0]
    assert kept.grading == "pairs"
    assert question.type.grade(kept, frozenset(), recorded.response) == pytest.approx(1 / 3)


def test_a_changed_right_order_regrades_the_kept_orders(client, steps):
    attempt = start(client, steps, "en")
    a, b, c, d = _items(steps)
    answer_order(client, attempt, 1, [b, a, c, d])
    assert not Answer.objects.get().is_correct
    a.position, b.position = 99, 1
    a.save()
    b.save()
    a.position = 2
    a.save()
    regraded = answers_regrade(quiz=steps)
    assert regraded.answers == 1
    assert Answer.objects.get().is_correct
    attempt.refresh_from_db()
    assert attempt.score == 1


def test_a_refused_order_is_shown_again_as_the_learner_posted_it(client, steps):
    attempt = start(client, steps, "en")
    items = _items(steps)
    posted = {items[0].pk: 2, items[1].pk: 2, items[2].pk: 1, items[3].pk: 4}
    response = client.post(
        question_url(attempt, 1), {"choice": [f"{pk}:{n}" for pk, n in posted.items()]}
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert _preselected(page, items) == posted
    assert page.count(" selected>") == len(items)
    assert not Answer.objects.exists()
