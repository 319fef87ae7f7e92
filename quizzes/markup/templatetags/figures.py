"""Numbers in pages: a dash when a figure can't be computed, the language's percent sign."""

from django import template
from django.template.defaultfilters import floatformat
from django.utils.translation import gettext

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
    return pct(floatformat(100 * value, digits))


@register.filter
def pct(value) -> str:
    """A number already in percent with its sign as the language writes it: "45%" in English,
    "45 %" with a narrow no-break space in French (the catalogue says which)."""
    return gettext("%(value)s%%") % {"value": value}
