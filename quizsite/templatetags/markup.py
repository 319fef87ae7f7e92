"""`{{ text|markdown:"fr" }}` and `{{ text|typography }}` for the few places without cached HTML.

Learner pages show the HTML the content cache keeps (rendered once per content change); these
filters are for uncached spots such as reports and the admin's preview, and for UI strings that
carry punctuation from content.
"""

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from quizzes.markup import french_typography, is_french, render

register = template.Library()


@register.filter
def markdown(source: str, language: str = "") -> SafeString:
    """The sanitised HTML of `source`; French typography when `language` is French.

    The language is the text's own, not the page's: an English fallback on a French page
    keeps English spacing.
    """
    return mark_safe(render(source or "", language=language).html)


@register.filter(is_safe=True)
def typography(value) -> SafeString:
    """French spacing for a UI string on a French page; other languages pass unchanged."""
    html = conditional_escape(value)
    if not is_french(get_language() or ""):
        return html
    return mark_safe(french_typography(html))
