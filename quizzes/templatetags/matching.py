"""A matching question's pairs on its pages: the select boxes of the learner's form, and the
learner's right items beside the right ones in the reviews."""

from dataclasses import dataclass

from django import template

from quizzes.kinds.matching import is_matched, learner_pairs, left_items, right_items

register = template.Library()


@dataclass(frozen=True)
class Row:
    """A left item of the form: its choice and its select box's options, (value, right
    item's choice, selected) each, after the empty "Choose…" (selected when none is)."""

    choice: object
    options: tuple[tuple[str, object, bool], ...]

    @property
    def unmatched(self) -> bool:
        return not any(selected for _value, _right, selected in self.options)


@dataclass(frozen=True)
class Matched:
    """A left item of the learner's answer: its choice, the right item picked (None: none),
    and whether it is its own."""

    choice: object
    given: object

    @property
    def is_right(self) -> bool:
        return is_matched(self.choice, self.given)


@register.filter
def match_rows(choices, checked) -> list[Row]:
    """The left items of these choices (as the attempt shows them) in their order, each
    with a box of the distinct right items in the attempt's order: the one the learner
    posted selected (a refused answer shown again)."""
    posted = {}
    for value in checked or ():
        left, _colon, right = str(value).partition(":")
        posted.setdefault(left, right)
    rights = right_items(choices)
    return [
        Row(
            choice,
            tuple(
                (f"{choice.pk}:{right.pk}", right, posted.get(str(choice.pk)) == str(right.pk))
                for right in rights
            ),
        )
        for choice in left_items(sorted(choices, key=lambda choice: choice.position))
    ]


@register.filter
def learner_matches(question, response) -> list[Matched]:
    """The question's left items in order, each with the right item the learner picked for
    it (`Answer.response`)."""
    return [Matched(left, given) for left, given in learner_pairs(question, response)]
