from django.conf import settings
from django.core.exceptions import SuspiciousFileOperation
from django.db import DatabaseError, connection
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import requires_csrf_token
from django.views.static import serve


@never_cache
def healthz(request: HttpRequest) -> HttpResponse:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        return HttpResponse("database unavailable\n", status=503, content_type="text/plain")
    return HttpResponse("ok\n", content_type="text/plain")


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's 404, showing the view's own translated message where it gave one."""
    message = None
    if isinstance(exception, Http404) and exception.args and isinstance(exception.args[0], str):
        message = exception.args[0]
    return render(request, "404.html", {"message": message}, status=404)


@requires_csrf_token
def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's 400, in the language of the page asked for.

    A bad Host is refused before the language is activated (by the HTTPS redirect or
    CommonMiddleware), so the language comes from the path here.
    """
    language = translation.get_language_from_path(request.path_info) or translation.get_language()
    with translation.override(language):
        return render(request, "400.html", status=400)


def media(request: HttpRequest, path: str) -> HttpResponse:
    """An uploaded image, when this process serves them (`SERVE_MEDIA`, docs/deployment.md).

    WhiteNoise can't: it knows only the files there at start-up. Django's `serve` is fine for a
    small site; names are content hashes, so a browser may keep a file for good.
    """
    try:
        response = serve(request, path, document_root=settings.MEDIA_ROOT)
    except SuspiciousFileOperation:  # "../", outside MEDIA_ROOT: no such image.
        raise Http404(path) from None
    response["Cache-Control"] = "public, max-age=31536000, immutable"
    return response
