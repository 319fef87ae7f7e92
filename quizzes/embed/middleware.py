"""Embed pages in another site's frame: their URLconf, their frame's policy, their cookies."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from quizsite.framing import COOKIES, framed_by, secure_context, third_party
from quizzes.embed.origins import origins_for
from quizzes.learning.identity import LEARNER_COOKIE
from quizzes.templatetags.embedding import EMBED_URLCONF

LANGUAGES = frozenset(code for code, _name in settings.LANGUAGES)


def is_embed_path(path: str) -> bool:
    """/<lang>/embed/…: an embed page."""
    parts = path.split("/", 3)
    return len(parts) > 3 and parts[1] in LANGUAGES and parts[2] == "embed"


class EmbedFrameMiddleware:
    """An embed page is served under the embed's URLconf, framed by the origins allowed to
    embed its quiz (EmbedOrigin: CSP frame-ancestors, no X-Frame-Options), none if there are
    none; in a secure context its cookies (the session's, the CSRF token's, the messages',
    the anonymous learner's key) are SameSite=None; Secure; Partitioned, as the guide's
    frame is another site. Every other page keeps frame-ancestors 'none' and DENY: the
    accounts' pages (sign-in, sign-up, password, deletion) and the admin are never embed
    pages, whatever the frame links to.

    It sits where LtiFrameMiddleware does, for the same reasons, and before the locale's
    middleware, which reads the URLconf."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not is_embed_path(request.path_info):
            return self.get_response(request)
        request.urlconf = EMBED_URLCONF
        response = self.get_response(request)
        framed_by(response, origins_for(request))
        if secure_context(request):
            third_party(response, (*COOKIES, LEARNER_COOKIE))
            match = request.resolver_match
            if match is not None and match.view_name == "embed:connected":
                _session_for_frames(request, response)
        return response


def _session_for_frames(request: HttpRequest, response: HttpResponse) -> None:
    """ "Connect your account" signed in in a window of its own, which lands here: the
    session's cookie again, unpartitioned but SameSite=None, so that a frame the browser
    lets reach the site's own cookies (the Storage Access API, or third-party cookies
    allowed) is sent it, and shows the account."""
    name = settings.SESSION_COOKIE_NAME
    if name in response.cookies or not request.user.is_authenticated:
        return
    response.set_cookie(
        name,
        request.COOKIES[name],
        max_age=settings.SESSION_COOKIE_AGE,
        domain=settings.SESSION_COOKIE_DOMAIN,
        path=settings.SESSION_COOKIE_PATH,
        secure=True,
        httponly=settings.SESSION_COOKIE_HTTPONLY,
        samesite="None",
    )
