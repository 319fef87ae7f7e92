"""Whether a page is shown in a guide's frame (quizzes/embed), for the templates the site and
its embeds share.

An embed page is served under its own URLconf (EMBED_URLCONF, set on the request by
quizzes.embed's middleware), in which the learner's pages (a question, the results…) are
the embed's addresses: the same views and templates reverse their links into the frame.
What leaves the quiz opens outside the frame (`{% leaves %}`)."""

from django import template
from django.urls import get_urlconf
from django.utils.safestring import SafeString, mark_safe

EMBED_URLCONF = "quizzes.embed.urlconf"

register = template.Library()


def embedded() -> bool:
    """Whether the request being served is an embed page's (its URLconf is the embed's)."""
    return get_urlconf() == EMBED_URLCONF


@register.simple_tag
def leaves() -> SafeString:
    """A link's attributes when it leaves the quiz (a guide, the site, sign-in): in a frame,
    it opens in a new tab, which gets no hold on the frame (rel=noopener)."""
    return mark_safe(' target="_blank" rel="noopener"') if embedded() else mark_safe("")


@register.simple_tag
def embed_page() -> bool:
    """`{% embed_page as embedded %}`: whether this page shows in a guide's frame."""
    return embedded()
