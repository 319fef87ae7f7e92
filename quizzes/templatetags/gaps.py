"""A gaps question on its pages: the prompt with an input in each gap on the learner's
form, and each gap's answer beside its right one in the reviews."""

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from quizzes.kinds.base import CHOICE_MARK, CHOICES_END
from quizzes.kinds.gaps import MAX_TYPED, filled, gap_answers, of_gap
from quizzes.kinds.numerical import Numerical
from quizzes.kinds.short_answer import shown_answer
from quizzes.kinds.single import SingleChoice
from quizzes.markup.rendering import plain_title
from quizzes.templatetags.numbers import value_of

register = template.Library()


def _refused(errors, posted: list[str], count: int) -> set[int]:
    """The gaps a refused answer's error is about (`errors`, the field's ValidationErrors):
    the gap it names, those left empty, or every gap (posted values that are not its gaps)."""
    for error in errors or ():
        if error.code == "gap":
            return {error.params["number"]}
        if error.code == "required":
            return {n for n in range(1, count + 1) if len(posted) < n or not posted[n - 1].strip()}
        return set(range(1, count + 1))
    return set()


@register.simple_tag
def gap_prompt(question, choices, checked, errors=None) -> SafeString:
    """The prompt's HTML with an input in each gap: a select box of the gap's choices (as
    the attempt shows them) or a text box, each holding what the learner posted
    (`checked`, a refused answer shown again); the gaps it was refused for are marked
    invalid and described by its error."""
    posted = [str(value) for value in checked or ()]
    refused = _refused(errors, posted, len(question.gaps))
    inputs = {}
    for number in range(1, len(question.gaps) + 1):
        value = posted[number - 1] if len(posted) >= number else ""
        label = gettext("Gap %(number)s") % {"number": number}
        invalid = number in refused
        error = mark_safe(' aria-invalid="true" aria-describedby="choice-error"' if invalid else "")
        kind = question.gaps[number - 1]
        if kind == SingleChoice.name:
            # Each option marked as its choice's block (quizzes/kinds/base.py), which a
            # kept step part moves into the attempt's order.
            options = format_html_join(
                "",
                '{}<option value="{}"{}>{}</option>',
                (
                    (
                        mark,
                        choice.pk,
                        mark_safe(" selected") if str(choice.pk) == value else "",
                        text,
                    )
                    for choice in of_gap(choices, number)
                    for mark in [mark_safe(CHOICE_MARK.format(choice.pk))]
                    for text in [plain_title(str(choice.text))]
                ),
            ) + mark_safe(CHOICES_END)
            inputs[number] = format_html(
                '<select class="gap-input" name="choice" id="gap-{}" aria-label="{}"{}>'
                '<option value="">{}</option>{}</select>',
                number,
                label,
                error,
                gettext("Choose…"),
                options,
            )
        else:
            inputs[number] = format_html(
                '<input type="text" class="gap-input gap-{}" name="choice" id="gap-{}" '
                'aria-label="{}" inputmode="{}" maxlength="{}" autocomplete="off" '
                'autocapitalize="off" spellcheck="false" value="{}"{}>',
                "number" if kind == Numerical.name else "text",
                number,
                label,
                "decimal" if kind == Numerical.name else "text",
                MAX_TYPED,
                value,
                error,
            )
    return mark_safe(filled(question.prompt.html, inputs))


@register.simple_tag
def gap_review(question, response, picked) -> list:
    """Each gap of the learner's answer (`kinds.gaps.GapAnswer`), in order."""
    return gap_answers(question, response, (choice.pk for choice in picked or ()))


@register.filter
def right_answer(gap) -> str:
    """A gap's right answers as the learner is shown them: "128", "DDP / FSDP"."""
    sub = gap.question
    if sub.kind == Numerical.name:
        shown = [value_of(choice, sub) for choice in gap.right_choices]
    elif sub.kind == SingleChoice.name:
        shown = [plain_title(str(choice.text)) for choice in gap.right_choices]
    else:
        shown = [shown_answer(str(choice.text)) for choice in gap.right_choices]
    return " / ".join(shown)
