"""The gradebook's cells as HTML, a row at a time.

A class of 500 learners and 20 assignments is 10,000 cells: written by the template language
they took most of the page's time, so a row's cells are written here, with the links' start
reversed and the words translated once per page (bench/gradebook.py measures it).
"""

from uuid import UUID

from django import template
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.timezone import localtime
from django.utils.translation import gettext, ngettext

from quizzes.classes.gradebook import Cell, Column, Gradebook, LearnerRow, Marks, OverrideNote

register = template.Library()

_ANY_ATTEMPT = UUID(int=0)


class Layout:
    """What every cell of a page shares: each column's start of a review link, the words."""

    def __init__(self, columns: tuple[Column, ...]):
        self.reviews = [
            reverse(
                "report_attempt",
                kwargs={"slug": column.assignment.quiz.slug, "public_id": _ANY_ATTEMPT},
            ).removesuffix(f"{_ANY_ATTEMPT}/")
            for column in columns
        ]
        self.marks = Marks(*(escape(word) for word in Marks.translated()))
        self.percent = escape(gettext("%(value)s%%"))
        self.attempts: dict[int, str] = {}

    def attempts_of(self, count: int) -> str:
        if count not in self.attempts:
            self.attempts[count] = escape(
                ngettext("%(count)d attempt", "%(count)d attempts", count) % {"count": count}
            )
        return self.attempts[count]

    def override(self, note: OverrideNote | None) -> str:
        """The override's mark, with what it gives, who gave it and when: over the mark (its
        title) and to screen readers (hidden text)."""
        if note is None:
            return ""
        details = escape(
            ngettext(
                "+%(attempts)s attempt, +%(minutes)s min, given by %(by)s on %(when)s",
                "+%(attempts)s attempts, +%(minutes)s min, given by %(by)s on %(when)s",
                note.extra_attempts,
            )
            % {
                "attempts": note.extra_attempts,
                "minutes": int(note.extra_time.total_seconds() // 60),
                "by": note.by,
                "when": date_format(localtime(note.at), "SHORT_DATETIME_FORMAT"),
            }
        )
        return (
            f' <span class="mark override" title="{details}">{self.marks.override}'
            f'<span class="visually-hidden"> ({details})</span></span>'
        )

    def cell(self, cell: Cell, review: str) -> str:
        override = self.override(cell.override)
        if cell.missing:
            return (
                f'<td class="grade missing"><span class="mark">{self.marks.missing}</span>'
                f"{override}</td>"
            )
        if cell.attempt is None:
            return f"<td>{override}</td>"
        if cell.grade is None:
            shown = self.marks.in_progress
            details = ""
        else:
            shown = self.percent % {"value": round(cell.grade)}
            details = f"<small>{self.attempts_of(cell.attempts)}</small>"
            if cell.late:
                details += f' <span class="mark">{self.marks.late}</span>'
            if cell.in_progress:
                details += f' <span class="mark">{self.marks.in_progress}</span>'
        late = " late" if cell.late else ""
        return (
            f'<td class="grade{late}"><a href="{review}{cell.attempt}/">{shown}</a> {details}'
            f"{override}</td>"
        )


@register.simple_tag
def gradebook_layout(book: Gradebook) -> Layout:
    return Layout(book.columns)


@register.simple_tag
def gradebook_cells(layout: Layout, row: LearnerRow) -> SafeString:
    """A learner's cells: each grade linked to the review of the attempt that made it."""
    # The words were escaped once (Layout), the links are reversed, the ids UUIDs.
    return mark_safe(  # noqa: S308
        "".join(
            layout.cell(cell, review)
            for cell, review in zip(row.cells, layout.reviews, strict=True)
        )
    )


@register.filter
def grade(value: float | None) -> str:
    """A grade or an average in whole percent, as the language writes it; "—" for none."""
    if value is None:
        return "—"
    return gettext("%(value)s%%") % {"value": round(value)}
