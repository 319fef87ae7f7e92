"""oEmbed's discovery link in a quiz page's <head> (quizzes/embed/oembed.py answers it)."""

from urllib.parse import urlencode

from django import template
from django.conf import settings
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()


@register.simple_tag
def oembed_link(quiz) -> SafeString:
    """The link to oEmbed's answer for `quiz`'s page in the active language, on SITE_URL (a
    kept page shows the same to every Host)."""
    page = settings.SITE_URL + quiz.get_absolute_url()
    query = urlencode({"url": page, "format": "json"})
    return format_html(
        '<link rel="alternate" type="application/json+oembed" href="{}" title="{}">',
        f"{settings.SITE_URL}{reverse('oembed')}?{query}",
        str(quiz.title),
    )
