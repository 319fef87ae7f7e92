"""A gaps (cloze) question as a learner answers it, in each language, and as answers
regrade: a number, a choice and a short answer in one text, credit per gap."""

import json
import re
from decimal import Decimal

import pytest
from django.core.cache import caches

from quizzes.kinds.gaps import blanks
from quizzes.learning.parts import Part, StepPart
from quizzes.learning.selectors import Learner, attempt_for_learner
from quizzes.learning.services import answers_regrade
from quizzes.markup.rendering import render
from quizzes.models import Answer, Choice
from tests.factories import (
    answer,
    answer_gaps,
    choice_of,
    make_gaps,
    make_quiz,
    question_url,
    results_url,
    start,
)


@pytest.fixture
def cloze(guide):
    quiz = make_quiz(slug="cloze", questions=2, guide=guide)
    make_gaps(quiz, 1)
    return quiz


def _choices(quiz) -> list[Choice]:
    return list(quiz.questions.get(position=1).choices.order_by("position"))


def test_the_prompt_shows_an_input_in_each_gap_in_both_languages(client, cloze):
    attempt = start(client, cloze, "fr")
    page = client.get(question_url(attempt, 1, "fr")).content.decode()
    choices = _choices(cloze)
    assert 'un pas de l’optimiseur voit <span class="gap-slot"><input' in page
    assert 'id="gap-1" aria-label="Trou 1" inputmode="decimal"' in page
    assert '<select class="gap-input" name="choice" id="gap-2" aria-label="Trou 2">' in page
    assert f'<option value="{choices[3].pk}">diffusion</option>' in page
    assert f'value="{choices[0].pk}"' not in page  # A typed gap's values are not listed.
    assert 'id="gap-3" aria-label="Trou 3" inputmode="text"' in page
    assert "[[" not in page
    assert page.count('name="choice"') == 3


def test_a_gap_keeps_the_punctuation_around_it_on_its_line(client, cloze):
    """No line of the prompt starts with the comma after a box, nor a French "?" after its
    no-break space: each gap is in a slot with them, kept on one line."""
    attempt = start(client, cloze, "fr")
    page = client.get(question_url(attempt, 1, "fr")).content.decode()
    assert re.search(r'un <span class="gap-slot"><select [^>]*id="gap-2".*?</select>,</span>', page)
    rendered = blanks(render("Le « [[1]] » ou ([[2]]), est-ce [[3]]\u202f? Oui.", language="fr"))
    assert rendered.html == (
        '<p>Le <span class="gap-slot">«\xa0<span class="gap-blank" data-gap="1">(1)</span>'
        '\xa0»</span> ou <span class="gap-slot">(<span class="gap-blank" data-gap="2">(2)'
        '</span>),</span> est-ce <span class="gap-slot"><span class="gap-blank" data-gap="3">'
        "(3)</span>\u202f?</span> Oui.</p>\n"
    )


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_gap_right_is_right_and_kept_as_the_response(client, cloze, lang):
    attempt = start(client, cloze, lang)
    choices = _choices(cloze)
    number = "256,0" if lang == "fr" else "256.0"
    reply = answer_gaps(client, attempt, 1, [number, choices[2], " ddp "], lang)
    assert reply.status_code == 302
    recorded = Answer.objects.get(attempt=attempt)
    assert recorded.is_correct and recorded.credit == 1
    assert json.loads(recorded.response) == ["256", str(choices[2].pk), "ddp"]
    assert set(recorded.picks.values_list("choice", flat=True)) == {
        choices[0].pk,
        choices[2].pk,
        choices[5].pk,
    }
    page = client.get(question_url(attempt, 1, lang)).content.decode()
    assert page.count("gap-blank") == 3  # The prompt shows its blanks, numbered.
    answer(client, attempt, 2, choice_of(cloze, 2, correct=True), lang)
    attempt.refresh_from_db()
    assert attempt.score == 2


def test_each_gap_earns_its_share_and_a_known_mistake_shows_its_feedback(client, cloze):
    attempt = start(client, cloze, "en")
    choices = _choices(cloze)
    assert answer_gaps(client, attempt, 1, ["32", choices[2], "FSDP"]).status_code == 302
    recorded = Answer.objects.get(attempt=attempt)
    assert recorded.credit == Decimal("0.33333") and not recorded.is_correct
    page = client.get(question_url(attempt, 1)).content.decode()
    assert "Partly right: 33% of the mark." in page or "Partly right: 33 % of the mark." in page
    assert "That is one worker's batch." in page
    assert "The right answer: <strong>256</strong>" in page
    assert "The right answer: <strong>DDP / DistributedDataParallel</strong>" in page
    assert page.count("✓</span> Right") == 1


@pytest.mark.parametrize(
    ("values", "message", "marked"),
    [
        (["", "{pick}", "DDP"], "Fill in every gap.", ["1"]),
        (["256", "", " "], "Fill in every gap.", ["2", "3"]),
        (["abc", "{pick}", "DDP"], "Gap 1: ", ["1"]),
        (["NaN", "{pick}", "DDP"], "Gap 1: ", ["1"]),
        (["1e999", "{pick}", "DDP"], "Gap 1: ", ["1"]),
        (["9" * 5000, "{pick}", "DDP"], "Gap 1: that is too long for a gap", ["1"]),
        (["256", "{other}", "DDP"], "Gap 2: ", ["2"]),
        (["256", "9" * 5000, "DDP"], "Gap 2: ", ["2"]),
        (["256", "{pick}", "x" * 10000], "Gap 3: that is too long for a gap", ["3"]),
        (["256", "{pick}"], "Those are not this question", ["1", "2", "3"]),
        (["256", "{pick}", "DDP", "DDP"], "Those are not this question", ["1", "2", "3"]),
        (["٢٥٦", "{pick}", "DDP"], "Gap 1: ", ["1"]),
    ],
)
def test_bad_gaps_are_refused_with_a_message_and_record_nothing(
    client, cloze, values, message, marked
):
    """The message says why, and the gaps it is about (and they alone) are marked invalid."""
    attempt = start(client, cloze, "en")
    choices = _choices(cloze)
    other = make_quiz(slug="other", questions=1).questions.get().choices.first()
    posted = [
        v.replace("{pick}", str(choices[2].pk)).replace("{other}", str(other.pk)) for v in values
    ]
    reply = client.post(question_url(attempt, 1), {"choice": posted})
    assert reply.status_code == 400
    page = reply.content.decode()
    assert message.replace("'", "&#x27;") in page
    assert re.findall(r'id="gap-([0-9])"[^>]*aria-invalid="true"', page) == marked
    assert not Answer.objects.exists()


def test_a_lone_surrogate_in_a_gap_is_refused_not_a_500(client, cloze):
    attempt = start(client, cloze)
    pick = _choices(cloze)[2].pk
    body = f"choice=256&choice={pick}&choice=a%ED%A0%80b"  # Not UTF-8.
    reply = client.post(
        question_url(attempt, 1), body, content_type="application/x-www-form-urlencoded"
    )
    assert reply.status_code == 400
    assert "Gap 3: Your answer holds a character that can" in reply.content.decode()
    assert not Answer.objects.exists()


def test_gaps_too_long_together_for_the_response_are_refused(client, cloze):
    """Each short text within its limit, but its escapes (a control character is kept as
    six) past what an answer keeps: refused, not a database error."""
    quiz = make_quiz(slug="long", questions=1)
    question = make_gaps(quiz, 1)
    question.gaps = ["short_answer"] * 8
    question.prompt_en = " ".join(f"[[{n}]]" for n in range(1, 9))
    question.prompt_fr = ""
    question.save()
    question.choices.update(gap=1)
    for gap in range(2, 9):
        question.choices.create(position=10 + gap, gap=gap, text_en="x", is_correct=True)
    quiz.is_published = True
    quiz.save()
    attempt = start(client, quiz)
    reply = client.post(question_url(attempt, 1), {"choice": ["a\x01" * 50] * 8})
    assert reply.status_code == 400
    assert "Your answers are too long together" in reply.content.decode()
    assert not Answer.objects.exists()


def test_answers_regrade_per_gap_when_a_gap_s_right_answer_changes(client, cloze):
    attempt = start(client, cloze, "en")
    choices = _choices(cloze)
    answer_gaps(client, attempt, 1, ["32", choices[2], "DDP"])
    assert Answer.objects.get().credit == Decimal("0.66667")
    Choice.objects.filter(pk=choices[1].pk).update(is_correct=True)
    answers_regrade(questions=cloze.questions.filter(position=1))
    regraded = Answer.objects.get()
    assert regraded.credit == 1
    # Three picks, as when it was recorded: no one pick stands for the answer.
    assert regraded.picks.count() == 3 and regraded.choice_id is None


def test_the_results_review_each_gap(client, cloze):
    attempt = start(client, cloze, "fr")
    choices = _choices(cloze)
    answer_gaps(client, attempt, 1, ["1 000", choices[3], "DDP"], "fr")
    answer(client, attempt, 2, choice_of(cloze, 2, correct=True), "fr")
    page = client.get(results_url(attempt, "fr")).content.decode()
    assert "<span>1\xa0000</span>" in page
    assert "<span>diffusion</span>" in page
    assert "Une diffusion envoie" not in page  # No French feedback: the English one shows.
    assert "A broadcast sends, it does not sum." in page


def test_a_shuffled_gap_s_options_show_in_each_attempt_s_order_from_one_kept_part(
    client, cloze, monkeypatch
):
    """The step part is kept with each gap's options in the question's order, marked, and
    each attempt's copy shows them in its own order (quizzes/learning/parts.py)."""
    cloze.shuffle_choices = True
    cloze.save()
    caches["default"].clear()
    rendered = []
    marked = Part.marked
    monkeypatch.setattr(Part, "marked", lambda part: rendered.append(part) or marked(part))
    orders = set()
    for _ in range(8):
        attempt = start(client, cloze, start_over=True)
        page = client.get(question_url(attempt, 1)).content.decode()
        shown = [int(pk) for pk in re.findall(r'<option value="([0-9]+)"', page)]
        learner = Learner(user_id=None, key=attempt.learner_key)
        found = attempt_for_learner(public_id=attempt.public_id, learner=learner)
        question = found.steps[0].question
        gaps = question.gaps
        expected = [c.pk for c in found.choices_of(question) if gaps[c.gap - 1] == "single"]
        assert shown == expected
        assert "\x00" not in page
        orders.add(tuple(shown))
    assert len(orders) > 1
    assert len([part for part in rendered if isinstance(part, StepPart)]) == 1
