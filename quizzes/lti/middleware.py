"""Pages of an LTI session inside the LMS's iframe: framed by that platform only."""

from django.conf import settings

SESSION_FRAMED_BY = "lti_framed_by"
COOKIES = (settings.SESSION_COOKIE_NAME, settings.CSRF_COOKIE_NAME)


class LtiFrameMiddleware:
    """After a launch, the session's pages may be framed by its platform's origin (CSP
    frame-ancestors, no X-Frame-Options DENY) and post to it (the deep linking response);
    over HTTPS their cookies are SameSite=None, as the LMS's iframe is another site. Every
    other session, and the admin always, keeps frame-ancestors 'none' and DENY.

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
        return response
