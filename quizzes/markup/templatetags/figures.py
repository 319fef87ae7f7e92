"""Numbers in pages: a dash when a figure can't be computed, the language's percent sign."""

from decimal import ROUND_HALF_UP, Decimal

from django import template
from django.template.defaultfilters import floatformat
from django.utils.formats import number_format
from django.utils.translation import gettext

register = template.Library()


@register.filter
def figure(value, digits: int = 2) -> str:
    """`value` with `digits` decimals in the page's locale, or "—" when it is None."""
    if value is None:
        return "—"
    return floatformat(value, digits)


@register.filter
def score(value) -> str:
    """A score, which partial credit makes a fraction, to two decimals at most and as the
    page's language writes it: "3", "2.5", "2,5", "2.33"; "—" when it is None."""
    if value is None:
        return "—"
    rounded = Decimal(value).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    if rounded == rounded.to_integral_value():
        rounded = rounded.quantize(Decimal(1))
    return number_format(rounded.normalize() if rounded % 1 else rounded)


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


@register.filter
def duration(value) -> str:
    """A timedelta as hours, minutes and seconds ("1 h 02 min 05 s", "4 min 05 s", "9 s"),
    or "—" when it is None."""
    if value is None:
        return "—"
    seconds = max(0, int(value.total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return gettext("%(hours)d h %(minutes)02d min %(seconds)02d s") % {
            "hours": hours,
            "minutes": minutes,
            "seconds": seconds,
        }
    if minutes:
        return gettext("%(minutes)d min %(seconds)02d s") % {"minutes": minutes, "seconds": seconds}
    return gettext("%(seconds)d s") % {"seconds": seconds}
