import logging
import time

from django.conf import settings
from django.core.exceptions import BadRequest, SuspiciousOperation
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, QueryDict, UnreadablePostError
from django.http.multipartparser import MultiPartParserError
from django.template.defaultfilters import filesizeformat
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.datastructures import MultiValueDict

logger = logging.getLogger(__name__)


class DatabaseUnavailableMiddleware:
    """While the database can't be reached, pages answer 503 with a page saying so.

    A request that found the database unavailable waited for it (up to the pool's timeout);
    for PAUSE seconds after that, this process answers 503 at once rather than make every
    learner wait in turn, then the next request asks the connection pool again, so the site
    recovers on its own within about a second of the database's return.
    """

    PAUSE = 0.5

    def __init__(self, get_response):
        self.get_response = get_response
        self.paused_until = 0.0

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if time.monotonic() < self.paused_until:
            return self.unavailable(request)
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        self.paused_until = time.monotonic() + self.PAUSE
        logger.error("database unavailable for %s %s: %s", request.method, request.path, exception)
        return self.unavailable(request)

    @staticmethod
    def unavailable(request: HttpRequest) -> HttpResponse:
        # Rendered without the request context: its user and messages would need the database.
        path_language = translation.get_language_from_path(request.path_info)
        with translation.override(path_language or translation.get_language()):
            content = render_to_string("503.html", {"LANGUAGE_CODE": translation.get_language()})
        response = HttpResponse(content, status=503)
        response["Retry-After"] = "30"
        return response


def body_limit(path: str) -> int:
    """The largest body a request to this path may send (settings.REQUEST_BODY_LIMITS)."""
    prefix = max((p for p in settings.REQUEST_BODY_LIMITS if path.startswith(p)), key=len)
    return settings.REQUEST_BODY_LIMITS[prefix]


class BodyLimitMiddleware:
    """A request whose Content-Length is over its path's limit gets a 413 page saying so, before
    any of its body is read: nothing of it in memory or in a temporary file.

    The proxy in front refuses these already (deploy/nginx.conf.template); this holds for a
    site run without it. A body sent without a length (chunked) is not read by Django at all.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = body_limit(request.path_info)
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0  # Django reads no body of an unreadable length either.
        if length > limit:
            logger.warning(
                "refused a body of %d bytes for %s %s (limit %d)",
                length,
                request.method,
                request.path,
                limit,
            )
            return self.too_large(request, limit)
        return self.get_response(request)

    @staticmethod
    def too_large(request: HttpRequest, limit: int) -> HttpResponse:
        path_language = translation.get_language_from_path(request.path_info)
        with translation.override(path_language or translation.get_language()):
            context = {"LANGUAGE_CODE": translation.get_language(), "limit": filesizeformat(limit)}
            content = render_to_string("413.html", context)
        return HttpResponse(content, status=413)


class UnreadableBodyMiddleware:
    """A posted body the site can't read (another character set, broken multipart…) is a 400,
    and so is a query or form holding a NUL character.

    Django raises while parsing `request.POST`, but the CSRF check of the error views parses
    it again, so the 400 page itself failed with a 500. Parsed once here, after the language
    is known: on failure the request is left with an empty body and the 400 page is shown.
    """

    UNREADABLE = (
        BadRequest,
        SuspiciousOperation,
        MultiPartParserError,
        UnreadablePostError,
        UnicodeError,
        LookupError,
        ValueError,
    )

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method == "POST":
            try:
                request.POST  # noqa: B018 (reading it is the parse)
                request.FILES  # noqa: B018
            except self.UNREADABLE as error:
                request._post, request._files = QueryDict(), MultiValueDict()
                if isinstance(error, BadRequest | SuspiciousOperation):
                    raise
                raise BadRequest(f"unreadable request body: {error}") from error
        if _holds_nul(request.GET) or request.method == "POST" and _holds_nul(request.POST):
            request._post, request._files = QueryDict(), MultiValueDict()
            raise BadRequest("a NUL character in the request's query or form")
        return self.get_response(request)


def _holds_nul(data: QueryDict) -> bool:
    """Whether a query or form holds a NUL, which no field takes and PostgreSQL refuses in a
    query (an admin filter passed it on as it was: a 500)."""
    return any(
        "\x00" in key or any("\x00" in value for value in values) for key, values in data.lists()
    )


class PermissionsPolicyMiddleware:
    """Turns off the browser features in settings.PERMISSIONS_POLICY, on every response."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.header = ", ".join(f"{feature}=()" for feature in settings.PERMISSIONS_POLICY)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Permissions-Policy", self.header)
        return response
