"""Marks content that fell back to another language, so screen readers pronounce it right."""

from django import template
from django.utils.html import format_html
from django.utils.translation import get_language
from modeltranslation.utils import build_localized_fieldname, resolution_order

register = template.Library()


@register.filter
def lang_attr(obj, field: str) -> str:
    """` lang="en"` when `obj.<field>` is shown in a fallback language, else nothing: for a
    model instance, or kept content whose texts know their language (quizzes/content.py)."""
    value = getattr(obj, field, None)
    if hasattr(value, "lang_attr"):
        return value.lang_attr
    current = get_language()
    for lang in resolution_order(current):
        if getattr(obj, build_localized_fieldname(field, lang), None):
            return "" if lang == current else format_html(' lang="{}"', lang)
    return ""
