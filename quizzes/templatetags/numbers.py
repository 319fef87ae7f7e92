"""Numbers as the page's language writes them: a numerical answer and its accepted values;
a calculated question's placeholders where no value is drawn."""

import re

from django import template
from django.utils.safestring import SafeString, mark_safe

from quizzes.kinds.numerical import choice_value, number_text

register = template.Library()


@register.filter
def number(value) -> str:
    """A kept number ("1024", `Answer.response`) in the page's language: "1,024", "1 024"."""
    return "" if value is None else number_text(value)


@register.filter
def value_of(choice) -> str:
    """A numerical question's choice as the page's language writes it: "1,024 ± 0"."""
    value = choice_value(choice)
    if value is None:
        return str(choice.text)
    return f"{number_text(value)}\u00a0±\u00a0{number_text(choice.tolerance)}"


@register.filter
def as_variables(html: SafeString, question) -> SafeString:
    """A calculated question's text where no attempt drew its values (the quiz page's
    preview): each {name} of its variables as <var>name</var>; any other text as it is."""
    names = [variable.name for variable in question.variables]
    if not names:
        return html
    pattern = r"\{(" + "|".join(map(re.escape, names)) + r")\}"
    return mark_safe(re.sub(pattern, r"<var>\1</var>", str(html)))
