"""An ordering question's items on its pages: the position boxes of the learner's form, and
the learner's order beside the right one in the reviews."""

from dataclasses import dataclass

from django import template

from quizzes.kinds.ordering import response_ids

register = template.Library()


@dataclass(frozen=True)
class Row:
    """An item of the form: its choice and its position box's options, (value, number,
    selected) each."""

    choice: object
    options: tuple[tuple[str, int, bool], ...]


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
    """The items as shown, each with its position box: at its place on the page, or at the
    position the learner posted (a refused answer shown again)."""
    posted = {}
    for value in checked or ():
        pk, _colon, position = str(value).partition(":")
        posted.setdefault(pk, position)
    total = len(choices)
    rows = []
    for number, choice in enumerate(choices, 1):
        chosen = posted.get(str(choice.pk), str(number))
        rows.append(
            Row(
                choice,
                tuple(
                    (f"{choice.pk}:{place}", place, str(place) == chosen)
                    for place in range(1, total + 1)
                ),
            )
        )
    return rows


@register.filter
def learner_order(question, response) -> list[Placed]:
    """The question's items in the learner's order (`Answer.response`), each with its right
    position; items the question no longer has are left out."""
    right = {choice.pk: position for position, choice in enumerate(question.choices, 1)}
    by_pk = {choice.pk: choice for choice in question.choices}
    given = [pk for pk in response_ids(response) if pk in by_pk]
    return [Placed(by_pk[pk], number, right[pk]) for number, pk in enumerate(given, 1)]
