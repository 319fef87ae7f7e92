"""oEmbed (https://oembed.com/): a CMS given the address of a quiz, of its embed page or of one
of its questions' asks `/oembed?url=…` for the frame to show, the plain <iframe> of
snippets.py. JSON only: any other format is a 501, as the specification says. The quiz
pages point to it (`<link rel="alternate" type="application/json+oembed">`, discovery)."""

import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from django.conf import settings
from django.db.models import Count
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import Resolver404, resolve
from django.utils.translation import gettext, override
from django.views.decorators.http import require_safe

from quizzes.embed.snippets import (
    QUESTION_HEIGHT,
    QUIZ_HEIGHT,
    embed_url,
    frame_title,
    iframe_html,
    site_url,
)
from quizzes.models import Quiz

# The frame's width when the consumer gives no maxwidth.
WIDTH = 640
# How long a consumer may keep the answer: a quiz's title may change.
CACHE_AGE = 86_400
URL_MAX_LENGTH = 2_000
# A size in pixels: a whole number, at most 9 digits (a larger one would be no limit anyway).
_PIXELS = re.compile(r"[0-9]{1,9}")
# A format's name, which the 501 is for; anything else is a malformed request.
_FORMAT = re.compile(r"[A-Za-z]{1,16}")
# The pages oEmbed answers for: a quiz's, its embed page and its questions' embed pages.
QUIZ_VIEWS = {"quiz_detail", "embed:quiz"}
QUESTION_VIEW = "embed:question"


class BadRequest(Exception):
    """A malformed parameter: a 400 with this message."""


class NotFound(Exception):
    """No quiz of this site to embed at this address: a 404 with this message."""


@dataclass(frozen=True)
class Wanted:
    language: str
    slug: str
    number: int | None  # A question's, from 1; None for the whole quiz.


def _text(status: int, message: str) -> HttpResponse:
    return HttpResponse(f"{message}\n", status=status, content_type="text/plain; charset=utf-8")


def _one(request: HttpRequest, name: str) -> str | None:
    values = request.GET.getlist(name)
    if len(values) > 1:
        raise BadRequest(gettext("Give the parameter “%(name)s” once.") % {"name": name})
    return values[0] if values else None


def _pixels(request: HttpRequest, name: str) -> int | None:
    value = _one(request, name)
    if value is None or value == "":
        return None
    if not _PIXELS.fullmatch(value) or int(value) < 1:
        raise BadRequest(
            gettext("“%(name)s” must be a whole number of pixels, from 1 to 999999999.")
            % {"name": name}
        )
    return int(value)


def _served_hosts(request: HttpRequest) -> set[str]:
    """This site's host names with their ports: SITE_URL's, and the one the request came to
    (which ALLOWED_HOSTS has checked), as discovery links on its pages give it."""
    site = urlsplit(settings.SITE_URL)
    hosts = {_host_port(site.hostname or "", site.port, site.scheme)}
    host, _colon, port = request.get_host().rpartition(":")
    if not host or not port.isdigit():
        host, port = request.get_host(), ""
    hosts.add(_host_port(host.strip("[]"), int(port) if port else None, request.scheme))
    return hosts


def _host_port(host: str, port: int | None, scheme: str) -> str:
    default = {"http": 80, "https": 443}.get(scheme)
    return f"{host.lower()}:{port or default}"


def _wanted(request: HttpRequest) -> Wanted:
    """The quiz (and question) the `url` parameter names; BadRequest or NotFound."""
    url = _one(request, "url")
    if not url:
        raise BadRequest(gettext("Give the address of a quiz in the parameter “url”."))
    if len(url) > URL_MAX_LENGTH or any(ord(c) < 32 or ord(c) == 127 for c in url):
        raise BadRequest(gettext("The parameter “url” is not a web address."))
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise BadRequest(gettext("The parameter “url” is not a web address.")) from None
    if parts.scheme not in ("http", "https") or not parts.hostname or "\\" in url:
        raise BadRequest(gettext("The parameter “url” is not a web address."))
    not_found = NotFound(gettext("There is no quiz to embed at this address."))
    if parts.username is not None or parts.password is not None:
        raise not_found
    if _host_port(parts.hostname, port, parts.scheme) not in _served_hosts(request):
        raise not_found
    path = unquote(parts.path, errors="strict")
    language = path.split("/")[1] if path.count("/") > 1 else ""
    if language not in dict(settings.LANGUAGES):
        raise not_found
    with override(language):
        try:
            match = resolve(path)
        except Resolver404:
            raise not_found from None
    if match.view_name in QUIZ_VIEWS:
        return Wanted(language=language, slug=match.kwargs["slug"], number=None)
    if match.view_name == QUESTION_VIEW:
        return Wanted(language=language, slug=match.kwargs["slug"], number=match.kwargs["number"])
    raise not_found


@require_safe
def oembed(request: HttpRequest) -> HttpResponse:
    try:
        format_ = (_one(request, "format") or "json").lower()
        if not _FORMAT.fullmatch(format_):
            raise BadRequest(gettext("The parameter “format” must be “json”."))
        max_width, max_height = _pixels(request, "maxwidth"), _pixels(request, "maxheight")
        wanted = _wanted(request)
    except BadRequest as error:
        return _text(400, str(error))
    except NotFound as error:
        return _text(404, str(error))
    except UnicodeDecodeError:  # a %-escape in the address that is no UTF-8
        return _text(400, gettext("The parameter “url” is not a web address."))
    if format_ != "json":
        return _text(501, gettext("Only the JSON format is served."))
    quiz = (
        Quiz.objects.published()
        .filter(slug=wanted.slug)
        .annotate(question_count=Count("questions"))
        .first()
    )
    if quiz is None or (
        wanted.number is not None and not 1 <= wanted.number <= quiz.question_count
    ):
        return _text(404, gettext("There is no quiz to embed at this address."))
    width = min(WIDTH, max_width or WIDTH)
    height = min(QUIZ_HEIGHT if wanted.number is None else QUESTION_HEIGHT, max_height or 10**9)
    with override(wanted.language):
        title = frame_title(quiz_title=quiz.title, number=wanted.number)
    url = embed_url(slug=quiz.slug, language=wanted.language, number=wanted.number)
    response = JsonResponse(
        {
            "version": "1.0",
            "type": "rich",
            "title": title,
            "provider_name": "Quizsite",
            "provider_url": site_url("/"),
            "cache_age": CACHE_AGE,
            "width": width,
            "height": height,
            "html": iframe_html(url=url, title=title, width=width, height=height),
        }
    )
    # What it tells is public (a published quiz's title and frame): a consumer's page script
    # may read it too.
    response["Access-Control-Allow-Origin"] = "*"
    response["Cache-Control"] = f"public, max-age={CACHE_AGE}"
    return response
