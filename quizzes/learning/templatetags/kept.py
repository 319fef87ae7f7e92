"""Marks in a kept part's HTML (quizzes/learning/parts.py), which each learner's copy fills in.

`{% choice_mark choice %}` starts a choice's block in a list of choices and
`{% choices_end %}` ends the list's last one: a part kept with the choices in the question's
order moves the blocks into each attempt's order, and takes the marks out.
"""

from django import template
from django.utils.safestring import SafeString, mark_safe

from quizzes.kinds.base import CHOICE_MARK, CHOICES_END

register = template.Library()


@register.simple_tag
def choice_mark(choice) -> SafeString:
    return mark_safe(CHOICE_MARK.format(choice.pk))


@register.simple_tag
def choices_end() -> SafeString:
    return mark_safe(CHOICES_END)
