"""An ordering question's items on its pages: the position boxes of the learner's form, and
the learner's order beside the right one in the reviews."""

from dataclasses import dataclass

from django import template
from django.utils.safestring import SafeString, mark_safe

from quizzes.kinds.base import AT_PLACE_MARK
from quizzes.kinds.ordering import response_ids

register = template.Library()


@dataclass(frozen=True)
class Row:
    """An item of the form: its choice and its position box's options, (value, number,
    what the option says of being selected) each."""

    choice: object
    options: tuple[tuple[str, int, SafeString], ...]


@dataclass(frozen=True)
class Placed:
    """An item of the learner's order: its choice, its right position, and whether it is at
    that position."""

    choice: object
    position: int
    right_position: int

    @property
    def in_place(self) -> bool:
        return self.position == self.right_position


@register.filter
def order_rows(choices, checked) -> list[Row]:
    """The items, each with its position box: at the position the learner posted (a refused
    answer shown again), else at the place the item lands at on the page, which the kept
    part's copy for each attempt marks (`AT_PLACE_MARK`: the part is kept with the items in
    the question's order, and moved into the attempt's)."""
    posted = {}
    for value in checked or ():
        pk, _colon, position = str(value).partition(":")
        posted.setdefault(pk, position)
    places = range(1, len(choices) + 1)
    rows = []
    for choice in choices:
        chosen = posted.get(str(choice.pk))
        rows.append(
            Row(
                choice,
                tuple(
                    (f"{choice.pk}:{place}", place, _selected(place, chosen)) for place in places
                ),
            )
        )
    return rows


def _selected(place: int, chosen: str | None) -> SafeString:
    if chosen is None:
        return mark_safe(AT_PLACE_MARK.format(place))
    return mark_safe(" selected") if str(place) == chosen else mark_safe("")


@register.filter
def learner_order(question, response) -> list[Placed]:
    """The question's items in the learner's order (`Answer.response`), each with its right
    position; items the question no longer has are left out."""
    right = {choice.pk: position for position, choice in enumerate(question.choices, 1)}
    by_pk = {choice.pk: choice for choice in question.choices}
    given = [pk for pk in response_ids(response) if pk in by_pk]
    return [Placed(by_pk[pk], number, right[pk]) for number, pk in enumerate(given, 1)]
