import logging

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils import translation

logger = logging.getLogger(__name__)


class DatabaseUnavailableMiddleware:
    """While the database can't be reached, pages answer 503 with a page saying so.

    Nothing is kept from the failure: the next request asks the connection pool again,
    so the site recovers on its own when the database is back.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        logger.error("database unavailable for %s: %s", request.path, exception)
        # Rendered without the request context: its user and messages would need the database.
        path_language = translation.get_language_from_path(request.path_info)
        with translation.override(path_language or translation.get_language()):
            content = render_to_string("503.html", {"LANGUAGE_CODE": translation.get_language()})
        response = HttpResponse(content, status=503)
        response["Retry-After"] = "30"
        return response
