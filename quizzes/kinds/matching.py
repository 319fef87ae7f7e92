"""Matching: the learner matches each left item to a right item (Moodle's `match`,
qtype_match).

A question's choices are its pairs: a choice's text is a left item, its `match` the right
item it goes with (plain text: it shows in a select box). A choice with no text and a
right item is a distractor, a right item that matches nothing (Moodle's subquestion with no
question text); `is_correct` means nothing here. The learner picks a right item for each
left item, a select box each, listing every distinct right item once in an order drawn from
the attempt (`snapshots.choices_as_shown`); the left items stay in their order. A pick is
posted as "left id:right id", the right id that of the first choice (in order) whose right
item it is; the answer keeps the pairs in `Answer.response` ("12:14,13:12") and picks
nothing.

Grading, credit per pair: a left item is right when the right item picked for it is the
same text (in every language) as its own, so that two left items with the same right item
are both right with it; the score is the share of left items right.
"""

from collections.abc import Iterable, Mapping
from xml.etree import ElementTree as ET

from django import forms
from django.conf import settings
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from quizzes.kinds.base import (
    EditedChoice,
    GiftReading,
    GiftWriting,
    Kind,
    MoodleReading,
    MoodleWriting,
    Read,
    posted_id,
)
from quizzes.kinds.choices import moodle_shuffles

MAX_CHOICES = 20  # Pairs and distractors together: a page of select boxes.
_ARROW = "->"


def has_text(texts) -> bool:
    """Whether a choice's text (a snapshot's Text, or {language: text}) is a left item's."""
    values = texts.values() if isinstance(texts, dict) else (t for _c, t in texts.by_language)
    return any(value.strip() for value in values)


def left_items(choices: Iterable) -> list:
    """The choices (ChoiceContents) that are pairs, not distractors, in their order."""
    return [choice for choice in choices if has_text(choice.text)]


def right_items(choices: Iterable) -> list:
    """The distinct right items of these choices (ChoiceContents), each once as the first
    choice that has it, in their order."""
    first = {}
    for choice in choices:
        first.setdefault(choice.match, choice)
    return list(first.values())


def pairs_problems(choices: list[EditedChoice]) -> list[str]:
    """What is wrong with a matching question's pairs as an editor left them."""
    default = settings.LANGUAGE_CODE
    if len(choices) > MAX_CHOICES:
        message = gettext("A matching question has at most %(limit)s choices, not %(count)s.")
        return [message % {"limit": MAX_CHOICES, "count": len(choices)}]
    problems = []
    if any(not (choice.matches.get(default) or "").strip() for choice in choices):
        message = gettext("Every choice of a matching question needs a right item (%(language)s).")
        problems.append(message % {"language": default})
    if any(has_text(c.texts) and not (c.texts.get(default) or "").strip() for c in choices):
        message = gettext(
            "A left item of a matching question needs its text (%(language)s); "
            "a choice with no text at all is a distractor."
        )
        problems.append(message % {"language": default})
    if sum(has_text(choice.texts) for choice in choices) < 2:
        problems.append(
            gettext(
                "A matching question needs at least two pairs: two choices with a text "
                "(the left item) and a right item."
            )
        )
    return problems


def response_pairs(response: str | None) -> list[tuple[int, int]]:
    """The (left id, right id) pairs a kept response holds; [] for none or a bad one."""
    if not response:
        return []
    pairs = []
    parts = response.split(",")
    if len(parts) > MAX_CHOICES:
        return []
    for part in parts:
        left_text, _colon, right_text = part.partition(":")
        left, right = posted_id(left_text), posted_id(right_text)
        if left is None or right is None:
            return []
        pairs.append((left, right))
    return pairs


def learner_pairs(question, response: str | None) -> list[tuple[object, object]]:
    """The question's left items in order, each with the choice whose right item the learner
    picked for it (`Answer.response`): None for none, or one the question no longer has."""
    by_pk = {choice.pk: choice for choice in question.choices}
    picked = dict(response_pairs(response))
    return [(choice, by_pk.get(picked.get(choice.pk))) for choice in left_items(question.choices)]


def is_matched(left, given) -> bool:
    """Whether the choice `given` (None: no pick) holds the right item of the left item."""
    return given is not None and given.match == left.match


def score(question, response: str | None) -> float:
    """The share of the question's left items whose picked right item is their own."""
    pairs = learner_pairs(question, response)
    return sum(is_matched(left, given) for left, given in pairs) / len(pairs) if pairs else 0.0


class MatchField(forms.Field):
    """A right item for each left item, as "left id:right id" values of one name, cleaned to
    the (left id, right id) pairs in the left items' order."""

    widget = forms.SelectMultiple
    default_error_messages = {
        "required": _("Match every item."),
        "invalid": _("Those are not this question's items. Pick a right item for each item."),
    }

    def __init__(self, *, lefts: list[int], rights: set[int], **kwargs):
        super().__init__(**kwargs)
        self.lefts, self.rights = lefts, rights

    def to_python(self, value) -> tuple[tuple[int, int], ...]:
        if not value:
            return ()
        if not isinstance(value, list | tuple) or len(value) != len(self.lefts):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        picks = {}
        unmatched = False
        for posted in value:
            left, _colon, right = str(posted).partition(":")
            left_id, right_id = posted_id(left), posted_id(right)
            if left_id is None or left_id in picks or (right and right_id not in self.rights):
                raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
            unmatched = unmatched or not right
            picks[left_id] = right_id
        if sorted(picks) != sorted(self.lefts):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        if unmatched:
            raise forms.ValidationError(self.error_messages["required"], code="required")
        return tuple((left, picks[left]) for left in self.lefts)


class Matching(Kind):
    name = "matching"
    label = _("Matching")
    shuffles_always = True  # The right items; the left items stay in order.
    by_picks = False
    texts_optional = True
    input_template = "quizzes/_match_inputs.html"
    review_template = "quizzes/_match_review.html"

    def problems(self, correct: list[bool]) -> list[str]:
        return []  # Its pairs are values: `value_problems` checks them.

    def value_problems(self, choices: list[EditedChoice]) -> list[str]:
        return pairs_problems(choices)

    def form_field(self, choices, question=None) -> forms.Field:
        choices = sorted(choices, key=lambda choice: choice.position)
        return MatchField(
            lefts=[choice.pk for choice in left_items(choices)],
            rights={choice.pk for choice in choices},
        )

    def picked(self, value, choices) -> list[int]:
        return []

    def response(self, value) -> str | None:
        return ",".join(f"{left}:{right}" for left, right in value)

    def written(self, question, response: str, texts: Mapping[int, str], matches) -> str:
        pairs = response_pairs(response)
        return " | ".join(
            f"{texts.get(left, '')} → {matches.get(right, '')}" for left, right in pairs
        )

    def rematch(self, response: str, choices: Iterable, language: str | None = None) -> list[int]:
        return []

    def accepts(self, question, picked: frozenset[int], response: str | None = None) -> bool:
        pairs = response_pairs(response)
        lefts = [choice.pk for choice in left_items(question.choices)]
        pks = {choice.pk for choice in question.choices}
        return (
            not picked
            and [left for left, _right in pairs] == lefts
            and all(right in pks for _left, right in pairs)
        )

    def grade(self, question, picked: frozenset[int], response: str | None = None) -> float:
        return score(question, response)

    def gift_claims(self, answers: str) -> bool:
        return answers.lstrip().startswith("=") and _ARROW in answers and "~" not in answers

    def gift_read(self, answers: str, reading: GiftReading, inherited_format: str) -> Read:
        """{=left -> right =left2 -> right2 = -> distractor}, as Moodle's GIFT reads it:
        each left item a text in its format, each right item plain text."""
        choices = []
        for item in answers.split("="):
            if not item.strip():
                continue
            left, arrow, right = item.partition(_ARROW)
            if not arrow:
                message = gettext("a matching question's pair has no “->”: write left -> right.")
                return Read(problem=message)
            text, _format = reading.text(left, inherited_format)
            choices.append(_pair(text, reading.plain(right)))
        return _read(choices, reading.language, {})

    def gift_write(self, question: dict, writing: GiftWriting, general: str) -> list[str]:
        lines = ["{"]
        for choice in question.get("choices", []):
            left = writing.text(choice.get("text")) if writing.plain(choice.get("text")) else ""
            lines.append(f"\t={left} -> {_gift_escaped(writing.plain(choice.get('match')))}")
        if general:
            lines.append(f"\t{general}")
        return [*lines, "}"]

    moodle_type = "matching"
    moodle_also_reads = ("match",)
    moodle_penalty = "0.3333333"

    def moodle_read(self, element: ET.Element, reading: MoodleReading) -> Read:
        """Its <subquestion>s, each a left item (its <text>, in its format) and its
        <answer><text>, the right item (plain text); <shuffleanswers> false keeps the
        choices' order."""
        subquestions = element.findall("subquestion")
        if len(subquestions) > MAX_CHOICES:
            message = gettext(
                "a matching question has at most %(limit)s subquestions, not %(count)s."
            )
            return Read(problem=message % {"limit": MAX_CHOICES, "count": len(subquestions)})
        choices = [
            _pair(reading.text(sub), (sub.findtext("answer/text") or "").strip())
            for sub in subquestions
        ]
        fields = {} if moodle_shuffles(element) else {"keep_choice_order": True}
        return _read(choices, reading.language, fields)

    def moodle_write(self, element: ET.Element, question: dict, writing: MoodleWriting) -> None:
        shuffles = not question.get("keep_choice_order")
        ET.SubElement(element, "shuffleanswers").text = "true" if shuffles else "false"
        for choice in question.get("choices", []):
            sub = writing.text(element, "subquestion", writing.plain(choice.get("text")))
            answer = ET.SubElement(sub, "answer")
            ET.SubElement(answer, "text").text = writing.plain(choice.get("match"))


def _pair(text: dict[str, str], match: str) -> dict:
    """A file's pair as a quiz-file choice: a distractor has no text."""
    choice = {"text": text} if any(value.strip() for value in text.values()) else {}
    return {**choice, "match": match, "correct": False}


def _read(choices: list[dict], language: str, fields: dict) -> Read:
    """The quiz-file fields of a file's pairs, or why they make no matching question."""
    if any(not choice["match"] for choice in choices):
        return Read(problem=gettext("a matching question's pair has no right item."))
    if sum("text" in choice for choice in choices) < 2:
        return Read(problem=gettext("a matching question needs at least two pairs."))
    for choice in choices:
        choice["match"] = {language: choice["match"]}
    return Read(fields={"kind": Matching.name, **fields, "choices": choices})


def _gift_escaped(text: str) -> str:
    """A right item as GIFT writes it: its special characters escaped, new lines as \\n."""
    escaped = "".join(f"\\{char}" if char in "\\~=#{}:" else char for char in text)
    return escaped.replace("\r", "").replace("\n", "\\n")
