"""Numbers as the page's language writes them: a numerical answer and its accepted values."""

from django import template
from django.utils.translation import gettext

from quizzes.kinds.numerical import choice_value, is_any, number_text

register = template.Library()


@register.filter
def number(value) -> str:
    """A kept number ("1024", `Answer.response`) in the page's language: "1,024", "1 024"."""
    return "" if value is None else number_text(value)


@register.filter
def value_of(choice) -> str:
    """A numerical question's choice as the page's language writes it: "1,024 ± 0"."""
    if is_any(choice):
        return gettext("any number")
    value = choice_value(choice)
    if value is None:
        return str(choice.text)
    return f"{number_text(value)}\u00a0±\u00a0{number_text(choice.tolerance)}"
