"""Marks content that fell back to another language, and renders model instances' Markdown."""

from functools import lru_cache

from django import template
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import Truncator
from django.utils.translation import get_language
from modeltranslation.utils import build_localized_fieldname, resolution_order

from quizzes.kinds.gaps import blanks
from quizzes.markup.rendering import Rendered, render, title
from quizzes.snapshots import fallback_tag, field_markup

register = template.Library()

# Django's word truncation splits on every space and joins with a plain one, so the no-break
# spaces of French typography (before : ; ? ! », after «) became breaking ones.
_KEPT_SPACES = {"\u00a0": "\ue000", "\u202f": "\ue001"}  # As private-use characters.
_HOLD = str.maketrans(_KEPT_SPACES)
_RELEASE = str.maketrans({held: space for space, held in _KEPT_SPACES.items()})


@register.filter(is_safe=True)
def words_html(html: str, count: int) -> SafeString:
    """`truncatewords_html` that keeps no-break spaces: a word and the punctuation they tie
    to it count as one word and stay together."""
    short = Truncator(str(html).translate(_HOLD)).words(int(count), html=True, truncate=" …")
    return mark_safe(short.translate(_RELEASE))


def _shown(obj, field: str) -> tuple[str, str]:
    """(language, text) of `obj.<field>` as the page shows it: active language or fallback."""
    current = get_language()
    for lang in resolution_order(current):
        text = getattr(obj, build_localized_fieldname(field, lang), None)
        if text:
            return lang, text
    return current, ""


@register.filter
def lang_attr(obj, field: str) -> str:
    """` lang="en"` when `obj.<field>` is shown in a fallback language, else nothing: for a
    model instance, or kept content whose texts know their language (quizzes/snapshots.py)."""
    value = getattr(obj, field, None)
    if hasattr(value, "lang_attr"):
        return value.lang_attr
    lang, text = _shown(obj, field)
    return format_html(' lang="{}"', lang) if text and lang != get_language() else ""


@lru_cache(maxsize=2048)
def _rendered(source: str, language: str, inline: bool) -> Rendered:
    """Pages that show model instances (home, guide, reports) render a text once per process."""
    return render(source, language=language, inline=inline)


@register.filter
def html_of(obj, field: str) -> SafeString:
    """`obj.<field>` as the page shows it: Markdown rendered, plain text escaped, with the
    visible tag of a fallback language. Kept content has its HTML already (`Text.html`)."""
    value = getattr(obj, field, None)
    if hasattr(value, "html"):
        return value.html
    lang, text = _shown(obj, field)
    kind = field_markup(field)
    if kind is None:
        body = conditional_escape(text)
    else:
        body = mark_safe(_rendered(text, lang, kind == "inline").html)
    if text and lang != get_language():
        return body + fallback_tag(lang)
    return body


@lru_cache(maxsize=2048)
def _heading(source: str, language: str) -> Rendered:
    return title(source, language=language)


@register.filter
def heading_of(obj, field: str) -> SafeString:
    """The first line of a model instance's block field (`rendering.title`), where the text is
    named rather than shown, with the visible tag of a fallback language; a gaps question's
    prompt with each gap a numbered blank, "(1)", as the report names its gaps."""
    lang, text = _shown(obj, field)
    heading = _heading(text, lang)
    if field == "prompt" and getattr(getattr(obj, "type", None), "fills_prompt", False):
        heading = blanks(heading)
    body = mark_safe(heading.html)
    if text and lang != get_language():
        return body + fallback_tag(lang)
    return body
