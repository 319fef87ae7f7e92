"""Numbers in reports: a dash when a figure can't be computed."""

from django import template
from django.template.defaultfilters import floatformat

register = template.Library()


@register.filter
def figure(value, digits: int = 2) -> str:
    """`value` with `digits` decimals in the page's locale, or "—" when it is None."""
    if value is None:
        return "—"
    return floatformat(value, digits)


@register.filter
def percent(value, digits: int = 0) -> str:
    """A share between 0 and 1 as a percentage, or "—" when it is None."""
    if value is None:
        return "—"
    return f"{floatformat(100 * value, digits)} %"
