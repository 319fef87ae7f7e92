"""What a large import costs (issue 22, item 7), so that the admin's confirm of a large bank
stays well under the worker timeout (bench/import_bank.py times 2,000 questions): writing it
takes as many queries for 30 questions as for 3, its questions and choices written in
batches; the confirm does not render again the texts its preview rendered, but still looks
up their images."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from quizzes.interchange.errors import QuizFileError
from quizzes.interchange.importing import import_apply, import_plan
from quizzes.interchange.quizfile import quiz_file_dump
from quizzes.models import Choice, Question, Quiz
from quizzes.snapshots import text_problems
from tests.factories import answer, start


def _bank(slug: str, questions: int, *, edition: int, choices: int = 3) -> bytes:
    """A quiz file of `questions` questions whose texts all change with `edition`."""
    data = {
        "slug": slug,
        "title": {"en": "Bank", "fr": "Banque"},
        "questions": [
            {
                "prompt": {"en": f"**Q{n}.{edition}** `x`?", "fr": f"**Q{n}.{edition}** `x` ?"},
                "explanation": {"en": f"$x = {n}$, edition {edition}."},
                "choices": [
                    {"text": {"en": f"C{c}.{edition}", "fr": f"C{c}.{edition}"}, "correct": c == 1}
                    for c in range(1, choices + 1)
                ],
            }
            for n in range(1, questions + 1)
        ],
    }
    return quiz_file_dump(data).encode()


def _write_queries(content: bytes) -> int:
    plan = import_plan(content=content, name="bank.yaml")
    assert plan.can_apply, plan.errors
    with CaptureQueriesContext(connection) as queries:
        import_apply(plan=plan)
    return len(queries)


BANKS = [("small", 3), ("large", 30)]


def _rows() -> int:
    return Question.objects.count() + Choice.objects.count()


@pytest.mark.django_db
def test_creating_and_updating_take_as_many_queries_for_30_questions_as_for_3():
    # 60 choices: one INSERT within SQLite's 999 parameters (a choice has 12 columns).
    created = [_write_queries(_bank(slug, size, edition=1, choices=2)) for slug, size in BANKS]
    updated = [_write_queries(_bank(slug, size, edition=2, choices=2)) for slug, size in BANKS]
    assert created[0] == created[1] <= 20
    assert updated[0] == updated[1] <= 30
    question = Quiz.objects.get(slug="large").questions.get(position=30)
    assert (question.prompt_en, question.prompt_fr) == ("**Q30.2** `x`?", "**Q30.2** `x` ?")
    assert [c.text_fr for c in question.choices.order_by("position")] == ["C1.2", "C2.2"]


@pytest.mark.django_db
def test_deleting_takes_a_few_queries_and_one_stamp_per_row_deleted():
    """Each row deleted sends its signal, which moves its quiz's stamp (quizzes/apps.py): one
    UPDATE each; the rest does not grow with the file."""
    for slug, size in BANKS:
        _write_queries(_bank(slug, size, edition=1))
    fixed = []
    for slug, size in BANKS:  # Every question loses its last choice, and half of them go.
        before = _rows()
        queries = _write_queries(_bank(slug, size // 2 + 1, edition=1, choices=2))
        fixed.append(queries - (before - _rows()))
    assert fixed[0] == fixed[1] <= 25
    large = Quiz.objects.get(slug="large")
    assert large.questions.count() == 16
    assert Choice.objects.filter(question__quiz=large).count() == 32


@pytest.mark.django_db
def test_a_batch_refused_for_answers_given_since_the_plan_names_them_and_writes_nothing(client):
    import_apply(plan=import_plan(content=_bank("bank", 4, edition=1), name="bank.yaml"))
    quiz = Quiz.objects.get(slug="bank")
    quiz.is_published = True
    quiz.save()
    plan = import_plan(content=_bank("bank", 2, edition=2), name="bank.yaml")
    assert plan.can_apply
    attempt = start(client, quiz)
    for number in (1, 2, 3):
        answer(client, attempt, number, Choice.objects.get(question__position=number, position=1))
    before = list(Question.objects.values_list("prompt_en", flat=True).order_by("position"))
    with pytest.raises(QuizFileError, match="learners have answered") as refused:
        import_apply(plan=plan)
    assert [place for place, _message in refused.value.errors] == [
        "quiz bank, question at position 3"
    ]
    after = list(Question.objects.values_list("prompt_en", flat=True).order_by("position"))
    assert after == before


def test_a_text_checked_without_rendering_still_has_its_images_looked_up():
    source = "Half $\\frac{a$ of ![a chart](/media/content/gone.png)"
    rendered = text_problems(field="prompt", language="en", source=source)
    unrendered = text_problems(field="prompt", language="en", source=source, render=False)
    assert [problem.split(": ")[1][:12] for problem in rendered] == ["The formula ", "The image “/"]
    assert unrendered == rendered[1:]
