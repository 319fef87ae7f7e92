"""Numbers as the page's language writes them: a numerical answer and its accepted values,
with the question's base unit if it has units; a calculated question's placeholders where
no value is drawn."""

import re

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from quizzes.kinds.numerical import base_unit, choice_value, is_any, number_text, unit_names

register = template.Library()


@register.filter
def number(value, question=None) -> str:
    """A kept number ("1024", `Answer.response`) in the page's language: "1,024", "1 024";
    with a question of units, in its base unit: "1,024 MB"."""
    return "" if value is None else _with_unit(number_text(value), question)


@register.filter
def value_of(choice, question=None) -> str:
    """A numerical question's choice as the page's language writes it: "1,024" (exactly),
    "1,024 MB ± 1 MB", "1,024 ± 1%" (French: "1 024 ± 1 %")."""
    if is_any(choice):
        return gettext("any number")
    value = choice_value(choice)
    if value is None:
        return str(choice.text)
    if not choice.tolerance:  # Exactly this value: "± 0" would say nothing more.
        return _with_unit(number_text(value), question)
    if choice.relative_tolerance:
        tolerance = gettext("%(number)s%%") % {"number": number_text(choice.tolerance)}
    else:
        tolerance = _with_unit(number_text(choice.tolerance), question)
    return f"{_with_unit(number_text(value), question)}\u00a0±\u00a0{tolerance}"


def _with_unit(shown: str, question) -> str:
    unit = base_unit(getattr(question, "units", ()))
    if unit is None:
        return shown
    return f"{unit.name}\u00a0{shown}" if question.units_left else f"{shown}\u00a0{unit.name}"


@register.filter
def unit_list(units) -> str:
    """A question's units for its learners: "MB, GB"."""
    return unit_names(units)


@register.filter
def as_variables(html: SafeString, question) -> SafeString:
    """A calculated question's text where no attempt drew its values (the quiz page's
    preview): each {name} of its variables as <var>name</var>; any other text as it is."""
    names = [variable.name for variable in question.variables]
    if not names:
        return html
    pattern = r"\{(" + "|".join(map(re.escape, names)) + r")\}"
    return mark_safe(re.sub(pattern, r"<var>\1</var>", str(html)))
