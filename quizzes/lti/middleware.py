"""Pages of an LTI session inside the LMS's iframe: framed by that platform only."""

from django.conf import settings

from quizsite.framing import COOKIES, framed_by, third_party

SESSION_FRAMED_BY = "lti_framed_by"


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
        framed_by(response, [origin], form_action=[origin])
        if request.is_secure():
            third_party(response, COOKIES)
        return response
