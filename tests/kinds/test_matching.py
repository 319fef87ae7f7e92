"""Matching questions: graded per pair as Moodle's qtype_match grades them, their pairs
checked, read and written as YAML, GIFT and Moodle XML (Moodle's own files among them)."""

from pathlib import Path
from types import SimpleNamespace

import pytest
from django.http import QueryDict

from quizzes.interchange.errors import QuizFileError
from quizzes.interchange.gift import gift_export, gift_parse
from quizzes.interchange.importing import quiz_import
from quizzes.interchange.moodle_xml import moodle_xml_export, moodle_xml_parse
from quizzes.interchange.quizfile import quiz_export, quiz_file_check
from quizzes.kinds import EditedChoice
from quizzes.kinds.matching import MAX_CHOICES, Matching, pairs_problems, response_pairs
from quizzes.learning.forms import AnswerForm
from quizzes.snapshots import Text

FIXTURES = Path(__file__).parent.parent / "interchange" / "moodle_fixtures"
KIND = Matching()


def _choice(pk: int, left: str, right: str) -> SimpleNamespace:
    """A choice as the kind sees it (a ChoiceContent's `pk`, `position`, `text`, `match`)."""
    return SimpleNamespace(
        pk=pk, position=pk, text=Text((("en", left),)), match=Text((("en", right),))
    )


# Moodle's own test question (question/type/match/tests/fixtures/testquestion.moodle.xml):
# two amphibians, a mammal, and an insect that matches nothing.
ANIMALS = SimpleNamespace(
    choices=(
        _choice(1, "frog", "amphibian"),
        _choice(2, "cat", "mammal"),
        _choice(3, "newt", "amphibian"),
        _choice(4, "", "insect"),
    )
)


@pytest.mark.parametrize(
    ("response", "score"),
    [
        ("1:1,2:2,3:3", 1.0),
        # The same right text is right for both amphibians, whichever choice gave it.
        ("1:3,2:2,3:1", 1.0),
        ("1:1,2:4,3:3", pytest.approx(2 / 3)),
        ("1:2,2:1,3:4", 0.0),
        ("1:1", pytest.approx(1 / 3)),  # A kept response missing pairs scores what it has.
        ("1:99,2:2,3:3", pytest.approx(2 / 3)),  # A choice no longer there is no match.
        ("", 0.0),
        ("1:1,x:2", 0.0),
    ],
)
def test_each_left_item_earns_its_share_when_its_right_text_is_picked(response, score):
    assert KIND.grade(ANIMALS, frozenset(), response) == score


def test_a_response_is_accepted_only_with_a_pick_for_each_left_item_in_order():
    assert KIND.accepts(ANIMALS, frozenset(), "1:4,2:4,3:4")
    assert not KIND.accepts(ANIMALS, frozenset(), "1:1,2:2")
    assert not KIND.accepts(ANIMALS, frozenset(), "2:2,1:1,3:3")
    assert not KIND.accepts(ANIMALS, frozenset(), "1:1,2:2,3:99")
    assert not KIND.accepts(ANIMALS, frozenset({1}), "1:1,2:2,3:3")
    assert response_pairs(",".join(["1:1"] * (MAX_CHOICES + 1))) == []
    assert response_pairs("1:" + "9" * 5000) == []


def _post(values: list[str]) -> QueryDict:
    query = QueryDict(mutable=True)
    query.setlist("choice", values)
    return query


@pytest.mark.parametrize(
    ("posted", "says"),
    [
        ([], "Match every item."),
        (["1:3", "2:", "3:1"], "Match every item."),
        (["1:3", "2:2"], "Those are not this question's items."),
        (["1:3", "1:2", "3:1"], "Those are not this question's items."),
        (["1:3", "2:2", "4:1"], "Those are not this question's items."),
        (["1:3", "2:2", "3:5"], "Those are not this question's items."),
        (["1:3", "2:2", "3:٣"], "Those are not this question's items."),
        (["1:3", "2:2", "3:\x00"], "Those are not this question's items."),
    ],
)
def test_the_form_refuses_what_is_not_a_pick_for_each_left_item(posted, says):
    form = AnswerForm(_post(posted), choices=ANIMALS.choices, kind=KIND)
    assert not form.is_valid()
    assert form.errors["choice"][0].startswith(says)


def test_the_form_cleans_to_the_pairs_in_the_left_items_order_and_picks_nothing():
    shown = [ANIMALS.choices[index] for index in (3, 1, 0, 2)]  # In an attempt's order.
    form = AnswerForm(_post(["3:1", "1:3", "2:2"]), choices=shown, kind=KIND)
    assert form.is_valid(), form.errors
    assert form.cleaned_data["choices"] == ()
    assert form.cleaned_data["response"] == "1:3,2:2,3:1"


def _edited(*pairs: tuple[dict, dict]) -> list[EditedChoice]:
    return [EditedChoice(texts=left, matches=right) for left, right in pairs]


@pytest.mark.parametrize(
    ("choices", "says"),
    [
        (
            _edited(({"en": "cat"}, {"en": "mammal"}), ({}, {"en": "insect"})),
            "A matching question needs at least two pairs",
        ),
        (
            _edited(({"en": "cat"}, {"en": "mammal"}), ({"en": "frog"}, {"fr": "amphibien"})),
            "Every choice of a matching question needs a right item (en).",
        ),
        (
            _edited(
                ({"en": "cat"}, {"en": "mammal"}),
                ({"en": "frog"}, {"en": "amphibian"}),
                ({"fr": "triton"}, {"en": "amphibian"}),
            ),
            "A left item of a matching question needs its text (en)",
        ),
        (
            _edited(*[({"en": f"L{n}"}, {"en": f"R{n}"}) for n in range(MAX_CHOICES + 1)]),
            "A matching question has at most 20 choices, not 21.",
        ),
    ],
    ids=["one-pair", "no-right-item", "left-item-only-in-french", "21-choices"],
)
def test_what_is_wrong_with_the_pairs_is_said(choices, says):
    problems = pairs_problems(choices)
    assert len(problems) == 1 and problems[0].startswith(says)


# A matching question in a quiz file, in both languages, with a distractor.
QUESTION = {
    "key": "Collectives",
    "kind": "matching",
    "prompt": {"en": "Match each collective to what it does.", "fr": "Associez chaque collective."},
    "choices": [
        {
            "text": {"en": "All-reduce", "fr": "All-reduce"},
            "match": {"en": "Every worker gets the sum", "fr": "Chaque worker reçoit la somme"},
            "correct": False,
        },
        {
            "text": {"en": "Broadcast", "fr": "Diffusion"},
            "match": {"en": "One worker's tensor to all", "fr": "Le tenseur d’un worker à tous"},
            "correct": False,
        },
        {
            "match": {"en": "Each worker keeps its own", "fr": "Chaque worker garde le sien"},
            "correct": False,
        },
    ],
}


def _file(*questions: dict) -> dict:
    return {"slug": "collectives", "title": {"en": "Collectives"}, "questions": list(questions)}


def test_the_quiz_file_round_trips_a_matching_question_in_both_languages(db):
    quiz = quiz_import(data=_file(QUESTION))
    (exported,) = quiz_export(quiz=quiz)["questions"]
    assert exported == QUESTION
    distractor = quiz.questions.get().choices.get(position=3)
    assert (distractor.text_en, distractor.match_fr) == ("", "Chaque worker garde le sien")


def _with_choices(*choices: dict) -> dict:
    return _file({**QUESTION, "choices": list(choices)})


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (
            _with_choices(QUESTION["choices"][0], {"text": {"en": "Broadcast"}}),
            "Every choice of a matching question needs a right item (en).",
        ),
        (
            _with_choices(*[{"text": {"en": f"L{n}"}, "match": {"en": "R"}} for n in range(1000)]),
            "A matching question has at most 20 choices, not 1000.",
        ),
        (
            _with_choices(
                QUESTION["choices"][0], {"text": {"en": "Broadcast"}, "match": {"en": "x" * 10_000}}
            ),
            "match_en: Ensure this value has at most 500 characters (it has 10000).",
        ),
        (
            _with_choices(QUESTION["choices"][0], {"text": {"en": "Broadcast"}, "match": 3}),
            "match must be a text or map language codes to texts.",
        ),
    ],
    ids=["no-right-item", "1000-choices", "10000-characters", "not-a-text"],
)
def test_the_quiz_file_refuses_bad_pairs_with_a_message(db, data, says):
    with pytest.raises(QuizFileError) as refused:
        quiz_file_check(data=data)
    assert says in str(refused.value)


def test_other_kinds_still_need_a_choice_text_in_the_quiz_file(db):
    data = _file({"prompt": {"en": "Which?"}, "choices": [{"correct": True}, {"text": "b"}]})
    with pytest.raises(QuizFileError) as refused:
        quiz_file_check(data=data)
    assert "text" in str(refused.value)


def test_moodles_own_gift_file_brings_its_matching_question_with_every_pair():
    parsed = gift_parse((FIXTURES / "questions.gift.txt").read_bytes(), language="en")
    (question,) = [
        question
        for quiz in parsed.quizzes
        for question in quiz["questions"]
        if question.get("key") == "Moodle activities"
    ]
    pairs = [
        ("An activity supporting asynchronous discussions.", "Forum"),
        ("A teacher asks a question and specifies a choice of multiple responses.", "Choice"),
        ("A bank of record entries which participants can add to.", "Database"),
        ("A collection of web pages that anyone can add to or edit.", "Wiki"),
    ]
    assert question == {
        "key": "Moodle activities",
        "prompt": {"en": "Match the **activity** to the description."},
        "kind": "matching",
        "choices": [
            *(
                {"text": {"en": left}, "match": {"en": right}, "correct": False}
                for left, right in pairs
            ),
            {"match": {"en": "Chat"}, "correct": False},  # "= -> Chat": a distractor.
        ],
    }
    assert not [place for place, _message in parsed.problems if "Moodle activities" in place]


def test_gift_writes_the_pairs_and_reads_them_back_with_their_escapes():
    question = {
        "key": "Signs",
        "prompt": {"en": "Match the signs."},
        "kind": "matching",
        "choices": [
            {"text": {"en": "a = b"}, "match": {"en": "equal: {x} ~ #1"}, "correct": False},
            {"text": {"en": "*a*"}, "match": {"en": "two\nlines"}, "correct": False},
            {"match": {"en": "nothing \\ at all"}, "correct": False},
        ],
    }
    written = gift_export(_file(question), language="en")
    assert "\t= -> nothing \\\\ at all" in written
    parsed = gift_parse(written, language="en")
    assert parsed.problems == []
    assert parsed.quizzes[0]["questions"] == [question]


def test_gift_writes_the_file_s_language():
    written = gift_export(_file(QUESTION), language="fr")
    assert "\t=Diffusion -> Le tenseur d’un worker à tous" in written
    (read,) = gift_parse(written, language="fr").quizzes[0]["questions"]
    assert [choice["match"] for choice in read["choices"]] == [
        {"fr": choice["match"]["fr"]} for choice in QUESTION["choices"]
    ]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("Q?{=a -> b =c}", "a matching question's pair has no “->”: write left -> right."),
        ("Q?{=a -> b =c ->}", "a matching question's pair has no right item."),
        ("Q?{=a -> b = -> c}", "a matching question needs at least two pairs."),
    ],
)
def test_gift_pairs_that_make_no_question_are_refused(text, says):
    parsed = gift_parse(text, language="en")
    assert parsed.quizzes == [] and parsed.problems == [("line 1", says)]


def test_moodles_own_matching_xml_imports_with_every_pair_and_its_distractor():
    parsed = moodle_xml_parse((FIXTURES / "matching.xml").read_bytes(), language="en")
    assert parsed.problems == []
    (question,) = parsed.quizzes[0]["questions"]
    assert question == {
        "key": "matching-001",
        "prompt": {"en": "Classify the animals."},
        "explanation": {"en": "General feedback."},
        "kind": "matching",
        "choices": [
            {"text": {"en": "frog"}, "match": {"en": "amphibian"}, "correct": False},
            {"text": {"en": "cat"}, "match": {"en": "mammal"}, "correct": False},
            {"text": {"en": "newt"}, "match": {"en": "amphibian"}, "correct": False},
            {"match": {"en": "insect"}, "correct": False},
        ],
    }
    # Moodle's feedback for right, partly right and wrong answers has no place here.
    ((_place, lost),) = parsed.warnings
    assert lost == (
        "not kept: Moodle's correctfeedback, partiallycorrectfeedback, incorrectfeedback."
    )


def test_moodles_xml_format_test_question_reads_and_our_export_reads_back_unchanged():
    parsed = moodle_xml_parse((FIXTURES / "matching_xmlformat.xml").read_bytes(), language="en")
    assert parsed.problems == []
    (question,) = parsed.quizzes[0]["questions"]
    assert [(c.get("text"), c["match"]) for c in question["choices"]] == [
        ({"en": "A"}, {"en": "a"}),
        ({"en": "B"}, {"en": "b"}),
        ({"en": "C"}, {"en": "c"}),
        (None, {"en": "d"}),
    ]
    assert question["explanation"] == {"en": "The answer is A -> a, B -> b and C -> c."}
    for data in (_file(question), _file({**QUESTION, "keep_choice_order": True})):
        written = moodle_xml_export(data, language="en")
        again = moodle_xml_parse(written, language="en")
        assert again.problems == []
        assert again.quizzes[0]["questions"] == [
            {**item, "choices": [_in_english(c) for c in item["choices"]]}
            | {"prompt": {"en": item["prompt"]["en"]}}
            for item in data["questions"]
        ]


def _in_english(choice: dict) -> dict:
    return {
        key: {"en": value["en"]} if isinstance(value, dict) else value
        for key, value in choice.items()
    }


@pytest.mark.parametrize(
    ("subquestions", "says"),
    [
        (
            "<subquestion><text>A</text><answer><text>a</text></answer></subquestion>"
            "<subquestion><text>B</text><answer><text></text></answer></subquestion>",
            "a matching question's pair has no right item.",
        ),
        (
            "<subquestion><text>A</text><answer><text>a</text></answer></subquestion>" * 21,
            "a matching question has at most 20 subquestions, not 21.",
        ),
        ("", "a matching question needs at least two pairs."),
    ],
)
def test_a_moodle_matching_question_that_makes_no_question_is_left_out(subquestions, says):
    content = (
        '<quiz><question type="matching"><name><text>M</text></name>'
        f"<questiontext><text>Match.</text></questiontext>{subquestions}</question></quiz>"
    )
    parsed = moodle_xml_parse(content.encode(), language="en")
    assert [message for _place, message in parsed.problems] == [says]


def test_a_new_right_item_in_the_file_updates_the_choice_on_import(db):
    quiz = quiz_import(data=_file(QUESTION))
    changed = {**QUESTION["choices"][1], "match": {"en": "From one to all", "fr": "D’un à tous"}}
    choices = [QUESTION["choices"][0], changed, QUESTION["choices"][2]]
    quiz_import(data=_file({**QUESTION, "choices": choices}))
    saved = quiz.questions.get().choices.values_list("match_en", "match_fr")
    assert list(saved)[1] == ("From one to all", "D’un à tous")
