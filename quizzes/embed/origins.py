"""Which sites may frame an embed page, and which of them framed it."""

from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.db.models import Q
from django.http import HttpRequest

from quizzes.models import EmbedOrigin, origin_normalised


def origins_for(request: HttpRequest) -> dict[str, int]:
    """The origins allowed to frame the page `request` asks for, with their ids: the
    site-wide ones and its quiz's, found by the address's quiz (slug) or attempt (id); the
    site-wide ones for any other embed page (a 404). One query, once per request."""
    found = getattr(request, "_embed_origins", None)
    if found is not None:
        return found
    match = request.resolver_match
    kwargs = match.kwargs if match is not None else {}
    if "slug" in kwargs:
        quiz = Q(quiz__slug=kwargs["slug"])
    elif "public_id" in kwargs:
        quiz = Q(quiz__attempts__public_id=kwargs["public_id"])
    else:
        quiz = Q(pk__in=())
    rows = EmbedOrigin.objects.for_quiz(quiz).order_by("origin").values_list("origin", "pk")
    request._embed_origins = found = dict(rows)
    return found


def origin_of(value: str) -> str | None:
    """The origin of an address (a Referer) or an origin, normalised; None if it has none."""
    try:
        parts = urlsplit(value or "")
        return origin_normalised(f"{parts.scheme}://{parts.netloc}")
    except (ValueError, ValidationError):
        return None


def referring_site(request: HttpRequest) -> str:
    """The allowed origin whose page framed this one, as the browser told it (the Referer of
    the frame's first page: its origin, by browsers' default referrer policy), or ""."""
    origin = origin_of(request.headers.get("Referer", ""))
    return origin if origin in origins_for(request) else ""


def posted_site(request: HttpRequest) -> int | None:
    """The allowed origin a Start's form says framed it (`site`, from `referring_site`), by
    id; None when it names none of this quiz's."""
    origin = origin_of(request.POST.get("site", ""))
    return origins_for(request).get(origin) if origin else None
