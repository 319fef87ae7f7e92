"""What a guide author pastes into a page to embed a quiz, or one of its questions: a plain
<iframe> (works everywhere, JavaScript off too) and the script form (`/embed.js` turns the
link into the frame and keeps its height to its content). Every address is on SITE_URL,
never the Host of the request that showed the snippet. oEmbed's `html` is the plain frame
(oembed.py)."""

from dataclasses import dataclass

from django.conf import settings
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import get_language_info, gettext, override

from quizzes.models import Quiz

# The frame's height without the script, which has no way to learn its content's: a whole
# quiz shows a question with its feedback; one question, less around it.
QUIZ_HEIGHT = 640
QUESTION_HEIGHT = 520


@dataclass(frozen=True)
class Snippets:
    """A quiz's or a question's snippets in one language."""

    language: str
    language_name: str
    url: str  # The embed page.
    title: str  # The frame's title, for screen readers.
    iframe: SafeString
    script: SafeString


def site_url(path: str) -> str:
    return settings.SITE_URL + path


def embed_url(*, slug: str, language: str, number: int | None = None) -> str:
    """The embed page of quiz `slug` (or of its question `number`, from 1) in `language`."""
    with override(language):
        if number is None:
            return site_url(reverse("embed:quiz", kwargs={"slug": slug}))
        return site_url(reverse("embed:question", kwargs={"slug": slug, "number": number}))


def frame_title(*, quiz_title: str, number: int | None) -> str:
    """The frame's title in the active language: the quiz's, and the question's number."""
    if number is None:
        return quiz_title
    return gettext("%(quiz)s, question %(number)s") % {"quiz": quiz_title, "number": number}


def iframe_html(*, url: str, title: str, height: int, width: int | None = None) -> SafeString:
    """The plain frame: the guide's width unless `width` (oEmbed's maxwidth) says otherwise."""
    if width is None:
        return format_html(
            '<iframe src="{}" title="{}" height="{}" style="width: 100%; border: 0" '
            'loading="lazy"></iframe>',
            url,
            title,
            height,
        )
    return format_html(
        '<iframe src="{}" title="{}" width="{}" height="{}" style="max-width: 100%; border: 0" '
        'loading="lazy"></iframe>',
        url,
        title,
        width,
        height,
    )


def script_html(*, url: str, title: str) -> SafeString:
    """The script form: a link to the embed page, which the script turns into a frame of it
    whose height follows its content, titled by the link's text (without script, the
    reader follows the link)."""
    return format_html(
        '<a class="quizsite-embed" href="{}">{}</a>\n<script src="{}" async></script>',
        url,
        title,
        site_url("/embed.js"),
    )


def snippets(*, quiz: Quiz, number: int | None = None) -> list[Snippets]:
    """The snippets of `quiz` (or of its question `number`, from 1), one per language."""
    shown = []
    for code, _name in settings.LANGUAGES:
        with override(code):
            title = frame_title(quiz_title=quiz.title, number=number)
        url = embed_url(slug=quiz.slug, language=code, number=number)
        height = QUIZ_HEIGHT if number is None else QUESTION_HEIGHT
        shown.append(
            Snippets(
                language=code,
                language_name=get_language_info(code)["name_local"],
                url=url,
                title=title,
                iframe=iframe_html(url=url, title=title, height=height),
                script=script_html(url=url, title=title),
            )
        )
    return shown
