"""Pages of an LTI session inside the LMS's iframe: framed by that platform only."""

from http.cookies import CookieError, Morsel

from django.conf import settings
from django.contrib.messages.storage.cookie import CookieStorage

SESSION_FRAMED_BY = "lti_framed_by"
# The session's, the CSRF token's and the messages' (what a page says after a redirect).
COOKIES = (settings.SESSION_COOKIE_NAME, settings.CSRF_COOKIE_NAME, CookieStorage.cookie_name)


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


class LtiFrameMiddleware:
    """After a launch, the session's pages may be framed by its platform's origin (CSP
    frame-ancestors, no X-Frame-Options DENY) and post to it (the deep linking response);
    over HTTPS their cookies are SameSite=None; Secure; Partitioned, as the LMS's iframe is
    another site. Every other session, and the admin always, keeps frame-ancestors 'none'
    and DENY, and its cookies as the settings make them.

    It sits between the CSP middleware and the session middleware: it sees the session's
    cookie once set, and changes the policy before it is written."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        # A visitor without a session (none came, none was made) has no LTI session: no
        # query reads it.
        name = settings.SESSION_COOKIE_NAME
        if name not in request.COOKIES and name not in response.cookies:
            return response
        session = getattr(request, "session", None)
        origin = session.get(SESSION_FRAMED_BY) if session is not None else None
        if not origin or request.path.startswith("/admin/"):
            return response
        response._csp_config = {
            **settings.CONTENT_SECURITY_POLICY_DIRECTIVES,
            "frame-ancestors": [origin],
            "form-action": ["'self'", origin],
        }
        if "X-Frame-Options" in response:
            del response["X-Frame-Options"]
        if request.is_secure():
            for cookie in COOKIES:
                if cookie in response.cookies:
                    response.cookies[cookie]["samesite"] = "None"
                    response.cookies[cookie]["secure"] = True
                    response.cookies[cookie] = partitioned(response.cookies[cookie])
        return response
