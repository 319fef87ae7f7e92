"""Pages another site may frame: the frame's policy, and cookies that work in a third-party
frame. Every page is framed by nobody (settings: frame-ancestors 'none', X-Frame-Options
DENY) but those a middleware lets framed here: an LTI session's (quizzes/lti) and the embed
pages (quizzes/embed)."""

from collections.abc import Iterable
from http.cookies import CookieError, Morsel

from django.conf import settings
from django.contrib.messages.storage.cookie import CookieStorage
from django.http import HttpRequest, HttpResponse
from django.http.request import split_domain_port

# The session's, the CSRF token's and the messages' (what a page says after a redirect).
COOKIES = (settings.SESSION_COOKIE_NAME, settings.CSRF_COOKIE_NAME, CookieStorage.cookie_name)

# Host names browsers treat as a secure context over plain http (so they keep a Secure
# cookie from them): the loopback, for a site run on a laptop and its tests.
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]"})


class PartitionedMorsel(Morsel):
    """A cookie written with CHIPS's `Partitioned`, which Python's cookies know from 3.14
    only."""

    def OutputString(self, attrs=None) -> str:
        return super().OutputString(attrs) + "; Partitioned"


def partitioned(morsel: Morsel) -> Morsel:
    """The cookie, kept in the jar of the site that frames it (CHIPS): browsers that block
    third-party cookies (Chrome's plans, Edge) still keep a partitioned one."""
    try:
        morsel["partitioned"] = True  # Python 3.14 and later.
    except CookieError:
        copy = PartitionedMorsel()
        copy.set(morsel.key, morsel.value, morsel.coded_value)
        copy.update(morsel)
        return copy
    return morsel


def secure_context(request: HttpRequest) -> bool:
    """Whether the browser keeps a Secure cookie from this request: over HTTPS, or from a
    loopback host name, which browsers count as secure over http too."""
    if request.is_secure():
        return True
    host, _port = split_domain_port(request.get_host())
    return host in LOOPBACK_HOSTS or host.endswith(".localhost")


def third_party(response: HttpResponse, cookies: Iterable[str]) -> None:
    """The response's `cookies` made for a third-party frame: SameSite=None; Secure;
    Partitioned (call it only in a secure context, see `secure_context`)."""
    for cookie in cookies:
        if cookie in response.cookies:
            response.cookies[cookie]["samesite"] = "None"
            response.cookies[cookie]["secure"] = True
            response.cookies[cookie] = partitioned(response.cookies[cookie])


def framed_by(
    response: HttpResponse, origins: Iterable[str], *, form_action: Iterable[str] = ()
) -> None:
    """The page may be framed by `origins` (CSP frame-ancestors, no X-Frame-Options), and its
    forms may also post to `form_action`; with no origin, by nobody, as every page."""
    origins = list(origins)
    if not origins:
        return
    response._csp_config = {
        **settings.CONTENT_SECURITY_POLICY_DIRECTIVES,
        "frame-ancestors": origins,
        "form-action": ["'self'", *form_action],
    }
    if "X-Frame-Options" in response:
        del response["X-Frame-Options"]
