"""Ordering: the learner puts items in order (Moodle's `ordering`, qtype_ordering).

A question's choices are its items, their positions the right order; `is_correct` means
nothing here. Each attempt shows them in an order drawn from its id (`snapshots.
choices_as_shown`), never the right one. The learner gives each item a position (a select
box each; the page's script reorders them by dragging or with Move buttons and sets the
boxes), posted as "id:position" values; the answer keeps the ids in the learner's order in
`Answer.response` ("12,10,11") and picks nothing.

Grading, a question's `grading`: all or nothing, or by adjacent pairs (Moodle's "relative
to the next item, excluding last"): a share for each item but the last that the right item
follows, out of one less than the number of items.
"""

from collections.abc import Iterable, Mapping
from xml.etree import ElementTree as ET

from django import forms
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from quizzes.kinds.base import (
    GiftReading,
    GiftWriting,
    Kind,
    MoodleReading,
    MoodleWriting,
    Read,
    posted_id,
)

MAX_ITEMS = 20  # Enough for any order a learner can hold in mind; a page of select boxes.


class Grading(models.TextChoices):
    ALL = "all", _("All or nothing")
    PAIRS = "pairs", _("Adjacent pairs (a share for each item followed by the right one)")


# Moodle's <gradingtype> names (and numbers) for ours.
_MOODLE_GRADING = {
    "ALL_OR_NOTHING": Grading.ALL,
    "-1": Grading.ALL,
    "RELATIVE_NEXT_EXCLUDE_LAST": Grading.PAIRS,
    "1": Grading.PAIRS,
}
_MOODLE_NAMES = {Grading.ALL: "ALL_OR_NOTHING", Grading.PAIRS: "RELATIVE_NEXT_EXCLUDE_LAST"}


def items_problems(count: int) -> list[str]:
    """What is wrong with an ordering of `count` items."""
    if count < 2:
        return [gettext("An ordering question needs at least two items.")]
    if count > MAX_ITEMS:
        message = gettext("An ordering question has at most %(limit)s items, not %(count)s.")
        return [message % {"limit": MAX_ITEMS, "count": count}]
    return []


def response_ids(response: str | None) -> list[int]:
    """The ids a kept response holds, in the learner's order; [] for none or a bad one."""
    if not response:
        return []
    parts = response.split(",")
    if len(parts) > MAX_ITEMS or not all(
        part.isdecimal() and part.isascii() and len(part) <= 18 for part in parts
    ):
        return []
    return [int(part) for part in parts]


def score(right: list[int], given: list[int], grading: str) -> float:
    """The score of the order `given` against the order `right`, from 0 to 1."""
    if len(right) < 2:
        return 0.0
    if grading != Grading.PAIRS:
        return 1.0 if given == right else 0.0
    pairs = set(zip(right, right[1:], strict=False))
    return sum(pair in pairs for pair in zip(given, given[1:], strict=False)) / (len(right) - 1)


class OrderField(forms.Field):
    """Each item's position, as "id:position" values of one name, cleaned to the items' ids
    in the learner's order."""

    widget = forms.SelectMultiple
    default_error_messages = {
        "required": _("Put the items in order."),
        "invalid": _("Those are not this question's items. Give each item shown a position."),
        "shared": _("Two items share position %(position)s: give each item its own position."),
    }

    def __init__(self, *, ids: list[int], **kwargs):
        super().__init__(**kwargs)
        self.ids = ids

    def to_python(self, value) -> tuple[int, ...]:
        if not value:
            return ()
        if not isinstance(value, list | tuple) or len(value) != len(self.ids):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        positions = {}
        for posted in value:
            pk, position = map(posted_id, str(posted).partition(":")[::2])
            if pk is None or position is None:
                raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
            positions[pk] = position
        if sorted(positions) != sorted(self.ids):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        if not all(1 <= position <= len(self.ids) for position in positions.values()):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        taken = set()
        for position in sorted(positions.values()):
            if position in taken:
                message = self.error_messages["shared"] % {"position": position}
                raise forms.ValidationError(message, code="shared")
            taken.add(position)
        return tuple(sorted(positions, key=positions.__getitem__))


class Ordering(Kind):
    name = "ordering"
    label = _("Ordering")
    shuffles_always = True
    marks_choices = True  # templates/quizzes/_order_inputs.html, its place marked too.
    by_picks = False
    in_gift = False
    input_template = "quizzes/_order_inputs.html"
    review_template = "quizzes/_order_review.html"

    def problems(self, correct: list[bool]) -> list[str]:
        return items_problems(len(correct))

    def form_field(self, choices, question=None) -> forms.Field:
        return OrderField(ids=[choice.pk for choice in choices])

    def picked(self, value, choices) -> list[int]:
        return []

    def response(self, value) -> str | None:
        return ",".join(map(str, value))

    def written(self, question, response: str, texts: Mapping[int, str], matches) -> str:
        return " > ".join(texts.get(pk, "") for pk in response_ids(response))

    def rematch(self, response: str, choices: Iterable, language: str | None = None) -> list[int]:
        return []

    def accepts(self, question, picked: frozenset[int], response: str | None = None) -> bool:
        ids = response_ids(response)
        right = [choice.pk for choice in question.choices]
        return not picked and len(ids) == len(right) and set(ids) == set(right)

    def grade(self, question, picked: frozenset[int], response: str | None = None) -> float:
        right = [choice.pk for choice in question.choices]
        return score(right, response_ids(response), getattr(question, "grading", Grading.ALL))

    def gift_claims(self, answers: str) -> bool:
        return False  # GIFT has no ordering questions.

    def gift_read(self, answers: str, reading: GiftReading, inherited_format: str) -> Read:
        raise NotImplementedError  # Never asked: it claims no GIFT answers.

    def gift_write(self, question: dict, writing: GiftWriting, general: str) -> list[str]:
        raise NotImplementedError("GIFT has no ordering questions.")

    moodle_type = "ordering"
    moodle_penalty = "0.3333333"

    def moodle_read(self, element: ET.Element, reading: MoodleReading) -> Read:
        answers = element.findall("answer")
        if len(answers) < 2:
            return Read(problem=gettext("an ordering question needs at least two items."))
        if len(answers) > MAX_ITEMS:
            message = gettext("an ordering question has at most %(limit)s items, not %(count)s.")
            return Read(problem=message % {"limit": MAX_ITEMS, "count": len(answers)})
        try:
            # qtype_ordering keeps each item's place in the right order as its "fraction".
            places = [
                float(answer.get("fraction") or index) for index, answer in enumerate(answers)
            ]
        except ValueError:
            places = list(range(len(answers)))
        ordered = [answers[index] for index in sorted(range(len(answers)), key=places.__getitem__)]
        choices = [{"text": reading.text(answer), "correct": False} for answer in ordered]
        if not all(choice["text"] for choice in choices):
            return Read(problem=gettext("an ordering question's item has no text."))
        named = (element.findtext("gradingtype") or "RELATIVE_NEXT_EXCLUDE_LAST").strip().upper()
        warnings = []
        grading = _MOODLE_GRADING.get(named)
        if grading is None:
            message = gettext(
                "Moodle's grading “%(grading)s” is not kept: graded by adjacent pairs "
                "(relative to the next item)."
            )
            warnings.append(message % {"grading": named})
            grading = Grading.PAIRS
        select = (element.findtext("selecttype") or "ALL").strip().upper()
        count = (element.findtext("selectcount") or "0").strip()
        if select not in ("ALL", "0") and count not in ("0", str(len(choices))):
            message = gettext("Moodle shows %(count)s of the items; here every item is shown.")
            warnings.append(message % {"count": count})
        fields = {"kind": self.name, "choices": choices}
        if grading != Grading.ALL:
            fields["grading"] = str(grading)
        return Read(fields=fields, warnings=tuple(warnings))

    def moodle_write(self, element: ET.Element, question: dict, writing: MoodleWriting) -> None:
        grading = Grading(question.get("grading", Grading.ALL))
        for tag, text in (
            ("layouttype", "VERTICAL"),
            ("selecttype", "ALL"),
            ("selectcount", "0"),
            ("gradingtype", _MOODLE_NAMES[grading]),
            ("showgrading", "SHOW"),
            ("numberingstyle", "none"),
        ):
            ET.SubElement(element, tag).text = text
        for place, choice in enumerate(question.get("choices", []), 1):
            writing.answer(element, {**choice, "feedback": None}, float(place), None)
