"""The question kinds' interface: every kind keeps it, and a new kind is one module."""

import inspect
from decimal import Decimal
from types import SimpleNamespace

import pytest
from django.core.management import call_command
from django.http import QueryDict
from django.template.loader import get_template

from quizzes import kinds
from quizzes.interchange.gift import gift_export, gift_parse
from quizzes.interchange.importing import quiz_import
from quizzes.interchange.moodle_xml import moodle_xml_export, moodle_xml_parse
from quizzes.kinds import calculated
from quizzes.kinds.base import EditedChoice, Kind
from quizzes.kinds.single import SingleChoice
from quizzes.learning.forms import AnswerForm
from quizzes.models import Question
from quizzes.snapshots import ChoiceContent, QuestionContent, Text, drawn
from tests.factories import content_of, question_url, start

# A question of each kind as a quiz file has it: a kind without one here fails below.
EXAMPLES = {
    "single": {
        "prompt": {"en": "Which one?"},
        "choices": [
            {"text": {"en": "This"}, "correct": True, "feedback": {"en": "Yes."}},
            {"text": {"en": "That"}, "correct": False},
        ],
    },
    "multiple": {
        "kind": "multiple",
        "prompt": {"en": "Which ones?"},
        "choices": [
            {"text": {"en": "This"}, "correct": True},
            {"text": {"en": "That"}, "correct": True},
            {"text": {"en": "Neither"}, "correct": False, "feedback": {"en": "No."}},
        ],
    },
    "true_false": {
        "kind": "true_false",
        "prompt": {"en": "Is it?"},
        "choices": [
            {"text": {"en": "True"}, "correct": False},
            {"text": {"en": "False"}, "correct": True, "feedback": {"en": "Right."}},
        ],
    },
    "numerical": {
        "kind": "numerical",
        "prompt": {"en": "8 workers, a local batch of 32, 4 accumulation steps: how many?"},
        "choices": [
            {"text": {"en": "1024"}, "correct": True, "feedback": {"en": "Yes."}},
            {
                "text": {"en": "32"},
                "correct": False,
                "tolerance": "0.5",
                "credit": "0.25",
                "feedback": {"en": "One."},
            },
            {"text": {"en": "*"}, "correct": False, "feedback": {"en": "Count them."}},
        ],
    },
    "short_answer": {
        "kind": "short_answer",
        "prompt": {"en": "What sums the gradients of every worker?"},
        "choices": [
            {"text": {"en": "all-reduce"}, "correct": True, "feedback": {"en": "Yes."}},
            {"text": {"en": "*reduce*"}, "correct": False, "credit": "0.5"},
            {"text": {"en": "*"}, "correct": False, "feedback": {"en": "Not that."}},
        ],
    },
    "ordering": {
        "kind": "ordering",
        "prompt": {"en": "Put the steps of an all-reduce in order."},
        "choices": [
            {"text": {"en": "Each worker computes its gradients"}, "correct": False},
            {"text": {"en": "Reduce-scatter: each sums one shard"}, "correct": False},
            {"text": {"en": "All-gather: each gets every summed shard"}, "correct": False},
        ],
    },
    "matching": {
        "kind": "matching",
        "prompt": {"en": "Match each collective to what it does."},
        "choices": [
            {
                "text": {"en": "All-reduce"},
                "match": {"en": "Every worker gets the sum"},
                "correct": False,
            },
            {
                "text": {"en": "Broadcast"},
                "match": {"en": "One worker's tensor to all"},
                "correct": False,
            },
            {"match": {"en": "Each worker gets one shard"}, "correct": False},
        ],
    },
    "calculated": {
        "kind": "calculated",
        "prompt": {"en": "{workers} workers, a local batch of {batch}, 4 steps: how many?"},
        "variables": [
            {"name": "workers", "min": "8", "max": "8"},
            {"name": "batch", "min": "32", "max": "32"},
        ],
        "choices": [
            {"text": {"en": "workers * batch * 4"}, "correct": True, "feedback": {"en": "Yes."}},
            {
                "text": {"en": "workers * batch"},
                "correct": False,
                "tolerance": "0.5",
                "feedback": {"en": "Times the {workers} workers' steps."},
            },
        ],
    },
    "gaps": {
        "kind": "gaps",
        "prompt": {"en": "8 workers × 32 samples make [[1]] samples, summed by [[2]] in [[3]]."},
        "gaps": ["numerical", "single", "short_answer"],
        "choices": [
            {"gap": 1, "text": {"en": "256"}, "correct": True},
            {
                "gap": 1,
                "text": {"en": "32"},
                "correct": False,
                "tolerance": "0.5",
                "credit": "0.25",
                "feedback": {"en": "One worker's."},
            },
            {"gap": 2, "text": {"en": "an all-reduce"}, "correct": True},
            {"gap": 2, "text": {"en": "a broadcast"}, "correct": False, "feedback": {"en": "No."}},
            {"gap": 3, "text": {"en": "DDP"}, "correct": True, "feedback": {"en": "Yes."}},
            {"gap": 3, "text": {"en": "*parallel*"}, "correct": False, "credit": "0.5"},
        ],
    },
}
# What a learner posts of each kind, right then wrong, where it is not the choices' ids.
TYPED = {
    "numerical": (["1,024"], ["7"]),
    "calculated": (["1,024"], ["256.4"]),
    "short_answer": (["  All-Reduce "], ["broadcast"]),
}
# Written as itself unless a kind says otherwise; no values, no response, as picks do.
_DEFAULTS = {
    "exported_as",
    "value_problems",
    "variable_problems",
    "gap_problems",
    "moodle_prompt",
    "response",
    "rematch",
    "for_question",
    "shown_response",
    "written",
}
_OWN = [
    name
    for name, member in vars(Kind).items()
    if inspect.isfunction(member) and name not in _DEFAULTS
]


def _content(example: dict) -> QuestionContent:
    """The example as an attempt shows it (a calculated one drawn for it)."""
    question = _kept(example)
    return drawn(question, SimpleNamespace(public_id="an-attempt"))


def _kept(example: dict) -> QuestionContent:
    choices = tuple(
        ChoiceContent(
            pk=pk,
            question_id=1,
            position=pk,
            is_correct=choice["correct"],
            tolerance=Decimal(choice.get("tolerance", 0)),
            relative_tolerance=False,
            credit=Decimal(choice.get("credit", 0)),
            text=Text((("en", choice.get("text", {}).get("en", "")),)),
            feedback=Text(()),
            match=Text((("en", choice.get("match", {}).get("en", "")),)),
            gap=choice.get("gap", 0),
        )
        for pk, choice in enumerate(example["choices"], 1)
    )
    return QuestionContent(
        pk=1,
        quiz_id=1,
        position=1,
        kind=example.get("kind", kinds.DEFAULT),
        keep_choice_order=False,
        prompt=Text((("en", example["prompt"]["en"]),)),
        explanation=Text(()),
        guide_url=Text(()),
        heading=Text(()),
        choices=choices,
        variables=calculated.parse_variables(example.get("variables"))[0],
        gaps=tuple(example.get("gaps", ())),
    )


@pytest.fixture(params=list(kinds.KINDS))
def kind(request) -> Kind:
    return kinds.get(request.param)


def test_every_kind_keeps_the_whole_interface(kind):
    assert kinds.KINDS[kind.name] is kind
    missing = [name for name in _OWN if getattr(type(kind), name) is getattr(Kind, name)]
    assert not missing
    assert str(kind.label) and kind.moodle_type and kind.moodle_penalty
    get_template(kind.input_template)
    get_template(kind.review_template)
    assert kind.name in EXAMPLES, "Add an example of the new kind to EXAMPLES."


def _posted(question: QuestionContent) -> tuple[list[str], list[str]]:
    """What a learner posts for the question, right then wrong."""
    if question.kind == "gaps":  # A value per gap: its choice gap's pick by its id.
        (right_pick,) = [c.pk for c in question.choices if c.gap == 2 and c.is_correct]
        (wrong_pick,) = [c.pk for c in question.choices if c.gap == 2 and not c.is_correct]
        return ["256", str(right_pick), "ddp"], ["7", str(wrong_pick), "FSDP"]
    if question.kind in TYPED:
        return TYPED[question.kind]
    if question.kind == "ordering":  # Each item's position: in order, then two swapped.
        pks = [choice.pk for choice in question.choices]
        swapped = [pks[1], pks[0], *pks[2:]]
        return [f"{pk}:{n}" for n, pk in enumerate(pks, 1)], [
            f"{pk}:{n}" for n, pk in enumerate(swapped, 1)
        ]
    if question.kind == "matching":  # Each left item's right item, then the first two swapped.
        lefts = [choice.pk for choice in question.choices if str(choice.text)]
        swapped = [lefts[1], lefts[0], *lefts[2:]]
        return [f"{pk}:{pk}" for pk in lefts], [
            f"{pk}:{other}" for pk, other in zip(lefts, swapped, strict=True)
        ]
    right = [str(choice.pk) for choice in question.choices if choice.is_correct]
    wrong = [str(choice.pk) for choice in question.choices if not choice.is_correct]
    return right, wrong[:1] if not question.type.several else wrong


def test_its_example_is_a_good_question_that_its_right_answer_gets_full_marks(kind):
    example = EXAMPLES[kind.name]
    assert kind.problems([choice["correct"] for choice in example["choices"]]) == []
    edited = [
        EditedChoice(
            texts=choice.get("text", {}),
            tolerance=choice.get("tolerance"),
            matches=choice.get("match", {}),
            correct=choice["correct"],
            gap=choice.get("gap", 0),
        )
        for choice in example["choices"]
    ]
    assert kind.value_problems(edited) == []
    assert kind.variable_problems(example.get("variables"), edited) == []
    prompts = {"en": example["prompt"]["en"], "fr": ""}
    assert kind.gap_problems(example.get("gaps"), prompts, edited) == []
    question = _content(example)
    for posted, score in zip(_posted(question), (1, 0), strict=True):
        form = AnswerForm(
            _post({"choice": posted}),
            choices=question.choices,
            kind=question.type,
            question=question,
        )
        assert form.is_valid(), form.errors
        picked = frozenset(choice.pk for choice in form.cleaned_data["choices"])
        response = form.cleaned_data["response"]
        assert kind.accepts(question, picked, response)
        assert kind.grade(question, picked, response) == score
    assert not kind.accepts(question, frozenset())
    every = frozenset(choice.pk for choice in question.choices)
    assert 0 <= kind.grade(question, every) <= 1


def test_an_answer_form_of_its_field_cleans_to_the_picks(kind):
    question = _content(EXAMPLES[kind.name])
    right = [choice.pk for choice in question.choices if choice.is_correct]
    posted, _wrong = _posted(question)
    form = AnswerForm(
        _post({"choice": posted}),
        choices=list(question.choices),
        kind=question.type,
        question=question,
    )
    assert form.is_valid(), form.errors
    assert [choice.pk for choice in form.cleaned_data["choices"]] == right


# GIFT has no place for these kinds: its export leaves them out, saying so in a comment.
GIFT_LEFT_OUT = {"calculated", "ordering", "gaps"}


@pytest.mark.parametrize("fmt", ["gift", "moodle_xml"])
def test_every_file_format_reads_back_what_it_writes_of_it(kind, fmt):
    data = {"slug": "kinds", "title": {"en": "Kinds"}, "questions": [EXAMPLES[kind.name]]}
    if fmt == "gift" and kind.name in GIFT_LEFT_OUT:
        written = gift_export(data, language="en")
        prompt = EXAMPLES[kind.name]["prompt"]["en"]
        left_out = (
            f"// Left out: “{prompt}”, a question of kind “{kind.label}”, which GIFT can’t hold."
        )
        assert left_out in written.splitlines()
        parsed = gift_parse(written, language="en")
        assert parsed.problems == [] and parsed.quizzes == []
        return
    if fmt == "gift":
        parsed = gift_parse(gift_export(data, language="en"), language="en")
    else:
        parsed = moodle_xml_parse(moodle_xml_export(data, language="en"), language="en")
    assert parsed.problems == []
    (question,) = parsed.quizzes[0]["questions"]
    assert question.get("kind", kinds.DEFAULT) == kind.name
    assert question["choices"] == EXAMPLES[kind.name]["choices"]
    assert question.get("variables") == EXAMPLES[kind.name].get("variables")
    assert question.get("gaps") == EXAMPLES[kind.name].get("gaps")
    assert question["prompt"] == EXAMPLES[kind.name]["prompt"]


# The answer step's queries for a right answer of each kind, as tests/learning/
# test_query_counts.py counts them (ANSWER_POST): the same at 8 questions and at 40.
# An ordering or matching answer inserts no pick: its order or its pairs are its response.
ANSWER_STEP = {
    "single": 7,
    "multiple": 7,
    "true_false": 7,
    "numerical": 7,
    "calculated": 7,
    "short_answer": 7,
    "ordering": 6,
    "matching": 6,
    "gaps": 7,
}


@pytest.mark.parametrize("questions", [8, 40])
def test_its_answer_step_costs_the_same_few_queries_whatever_the_quiz_s_size(
    kind, questions, client, db, django_assert_num_queries
):
    example = EXAMPLES[kind.name]
    data = {
        "slug": "kinds",
        "title": {"en": "Kinds"},
        "is_published": True,
        "questions": [example, *[EXAMPLES["single"]] * (questions - 1)],
    }
    quiz = quiz_import(data=data)
    attempt = start(client, quiz)
    right, _wrong = _posted(content_of(quiz).questions[0])
    with django_assert_num_queries(ANSWER_STEP[kind.name]):
        response = client.post(question_url(attempt, 1), {"choice": right})
    assert response.status_code == 302
    assert attempt.answers.get().is_correct


class _Pick(SingleChoice):
    """A kind of another name: one module like this one, listed in the registry."""

    name = "pick"
    label = "Pick one"


@pytest.mark.django_db
def test_a_new_kind_in_the_registry_needs_no_migration_and_is_a_kind_questions_take(
    monkeypatch, capsys
):
    monkeypatch.setitem(kinds.KINDS, "pick", _Pick())
    call_command("makemigrations", "quizzes", "--check", "--dry-run")
    assert "No changes detected" in capsys.readouterr().out
    field = Question._meta.get_field("kind")
    field.clean("pick", None)
    assert Question(kind="pick").type.name == "pick"


def _post(data: dict) -> QueryDict:
    query = QueryDict(mutable=True)
    for key, values in data.items():
        query.setlist(key, values)
    return query
