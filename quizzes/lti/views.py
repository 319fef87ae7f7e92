"""The tool's end of LTI 1.3: its keys, the OIDC login, the launch, deep linking."""

import logging
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.exception import OIDCException
from pylti1p3.lineitem import LineItem
from requests import RequestException

from guides.models import GuidePath
from quizzes.learning.services import AssignmentRefused, assignment_attempt_start
from quizzes.lti import services
from quizzes.lti.middleware import SESSION_FRAMED_BY
from quizzes.lti.models import Context, Platform, Score, ToolKey
from quizzes.lti.tasks import lineitem_make, roster_bring, scores_deliver
from quizzes.lti.tool import Launch, Login, LtiException, ToolConf, storage
from quizzes.models import Class, Quiz

log = logging.getLogger(__name__)

# In a deep linking launch, the launch whose response is still to send.
SESSION_DEEP_LINK = "lti_deep_link"


def _refused(request: HttpRequest, reason: str, status: int) -> HttpResponse:
    """Why a launch was refused, where it was launched: in the frame of any registered LMS
    (a page that records nothing: framing it risks little)."""
    response = render(request, "quizzes/lti/refused.html", {"reason": reason}, status=status)
    urls = Platform.objects.filter(is_active=True).values_list("auth_login_url", flat=True)
    origins = sorted({_origin(url) for url in urls})
    if origins:
        response.xframe_options_exempt = True
        response._csp_config = {
            **settings.CONTENT_SECURITY_POLICY_DIRECTIVES,
            "frame-ancestors": origins,
        }
    return response


def launch_url() -> str:
    return settings.SITE_URL + reverse("lti_launch")


@require_safe
def jwks(request: HttpRequest) -> JsonResponse:
    """The tool's public keys, which platforms check its signatures with."""
    ToolKey.objects.current()
    keys = [key.public_jwk() for key in ToolKey.objects.filter(is_active=True)]
    return JsonResponse({"keys": keys})


@csrf_exempt
@require_http_methods(["GET", "POST"])
def oidc_login(request: HttpRequest) -> HttpResponse:
    """Third-party initiated login: the platform names itself and the user; the tool sends
    the browser back to the platform's authorization endpoint with a state and a nonce."""
    try:
        return Login(request, ToolConf(), launch_data_storage=storage()).redirect(launch_url())
    except (OIDCException, LtiException) as error:
        log.info("LTI login refused: %s", error)
        return _refused(request, _("This LMS is not registered with the site."), 400)


def _locale_of(claims: dict) -> str:
    """The site's language closest to the launch's locale ("fr-CA": French), else its own."""
    locale = str((claims.get(services.CLAIM + "launch_presentation") or {}).get("locale", ""))
    wanted = locale.replace("_", "-").split("-")[0].lower()
    known = {code for code, _name in settings.LANGUAGES}
    return wanted if wanted in known else translation.get_language()


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


CHECK_FAILED = gettext_lazy(
    "This launch could not be checked: go back to your course and open the activity again."
)
NO_QUIZ = gettext_lazy(
    "This activity links to no quiz of the site: ask your instructor to choose its quiz again."
)
NO_QUIZ_YET = gettext_lazy(
    "Your instructor has not chosen a quiz for this activity yet: come back to it once they have."
)
NO_QUIZ_TAUGHT = gettext_lazy(
    "This activity of your course links to no quiz of the site, so its learners see none. "
    "Choose one by editing the activity in the LMS (its content selection), or give it the "
    "custom parameter quiz=<the quiz's slug>; the class's own assignments are here."
)


@csrf_exempt
@require_POST
def launch(request: HttpRequest) -> HttpResponse:
    """The platform's signed launch. Nothing is recorded unless its id_token is the
    platform's, unexpired, for this tool's client and a known deployment, and its nonce new;
    nor when a learner's names no quiz, or asks a learner to pick quizzes. An instructor's
    launch of a link to no quiz opens the class's page."""
    message = Launch(request, ToolConf())
    try:
        message.validate()
    except LtiException as error:
        log.info("LTI launch refused: %s", error)
        return _refused(request, CHECK_FAILED, 403)
    claims = message.claims()
    with translation.override(_locale_of(claims)):
        return _launched(request, message, claims)


def _launched(request: HttpRequest, message: Launch, claims: dict) -> HttpResponse:
    deep_linking = message.is_deep_link_launch()
    try:
        if deep_linking:
            if not services.teaches(services.roles_of(claims)):
                return _refused(
                    request, _("Only the course's instructors choose its quizzes."), 403
                )
            made = services.context_accept(platform=message.platform, claims=claims)
        elif message.is_resource_launch():
            made = services.launch_accept(platform=message.platform, claims=claims)
        else:
            return _refused(request, _("The site does not take this kind of LTI message."), 400)
    except services.NoTarget:
        return _refused(request, NO_QUIZ_YET, 404)
    except services.NoQuiz:
        return _refused(request, NO_QUIZ, 404)
    except services.NoContext:
        return _refused(request, _("The site opens quizzes from a course only."), 400)
    login(request, made.user, backend=settings.AUTHENTICATION_BACKENDS[0])
    request.session[SESSION_FRAMED_BY] = _origin(message.platform.auth_login_url)
    if Score.objects.pending().exists():  # The scores a platform refused before: again.
        scores_deliver.enqueue()
    if services.roster_due(context=made.context, teaching=made.teaching):
        roster_bring.enqueue(context_id=made.context.pk)
    if made.lineitem_missing:
        lineitem_make.enqueue(link_id=made.link.pk)
    if deep_linking:
        request.session[SESSION_DEEP_LINK] = message.get_launch_id()
        return redirect("lti_deep_link")
    if made.teaching:
        if made.link is None:  # A link of the course to no quiz: the class, and why.
            messages.warning(request, NO_QUIZ_TAUGHT)
        return redirect(made.klass)
    try:
        attempt = assignment_attempt_start(assignment=made.assignment, user=made.user)
    except AssignmentRefused as refusal:
        context = {"assignment": made.assignment, "reason": refusal.reason}
        return render(request, "quizzes/assignment_refused.html", context, status=403)
    return redirect(attempt.question_url(1))


def _deep_link_launch(request: HttpRequest) -> Launch:
    launch_id = request.session.get(SESSION_DEEP_LINK)
    if not launch_id:
        raise Http404(_("There is no LMS waiting for a quiz here."))
    try:
        return Launch.from_cache(launch_id, request, ToolConf())
    except LtiException:
        raise Http404(_("There is no LMS waiting for a quiz here.")) from None


def _picked(value: str, quizzes, paths) -> list[Quiz]:
    """The quizzes a picker's value names: "quiz:<slug>", or "path:<slug>" for each
    published quiz of a guide path, in the path's order."""
    kind, _colon, slug = value.partition(":")
    if kind == "quiz":
        return list(quizzes.filter(slug=slug)[:1])
    if kind == "path":
        path = paths.filter(slug=slug).first()
        return [] if path is None else list(quizzes.filter(guide_paths=path))
    return []


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def deep_link(request: HttpRequest) -> HttpResponse:
    """The instructor picks a quiz, or a guide path's quizzes when the LMS takes several
    links at once; the site answers the platform with a signed link to each."""
    message = _deep_link_launch(request)
    settings_claim = message.get_deep_link()._deep_link_settings
    several = bool(settings_claim.get("accept_multiple"))
    quizzes = Quiz.objects.filter(is_published=True).order_by("title", "pk")
    paths = GuidePath.objects.filter(is_published=True) if several else GuidePath.objects.none()
    context = {"quizzes": quizzes, "paths": paths}
    if request.method != "POST":
        return render(request, "quizzes/lti/deep_link.html", context)
    picked = _picked(request.POST.get("pick", ""), quizzes, paths)
    if not picked:
        context["error"] = _("Choose one of the quizzes listed.")
        return render(request, "quizzes/lti/deep_link.html", context, status=400)
    resources = [
        DeepLinkResource()
        .set_url(launch_url())
        .set_title(quiz.title)
        .set_custom_params({"quiz": quiz.slug})
        .set_lineitem(LineItem().set_label(quiz.title).set_score_maximum(100))
        for quiz in picked
    ]
    del request.session[SESSION_DEEP_LINK]
    context = {
        "return_url": settings_claim["deep_link_return_url"],
        "jwt": message.get_deep_link().get_response_jwt(resources),
        "picked": picked,
    }
    return render(request, "quizzes/lti/deep_link_return.html", context)


@login_required
@require_POST
def roster_fill(request: HttpRequest, class_id: int) -> HttpResponse:
    """Bring the course's roster from the LMS (Names and Role Provisioning Services)."""
    context = (
        Context.objects.select_related("klass", "platform")
        .filter(klass__in=Class.objects.taught_by(request.user), klass=class_id)
        .exclude(memberships_url="")
        .first()
    )
    if context is None:
        raise Http404(_("There is no class of yours from an LMS at this address."))
    try:
        filled = services.roster_fill(context=context)
    except (LtiException, RequestException, KeyError, ValueError) as error:
        log.warning("LTI roster of %s not read: %s", context, error)
        messages.error(request, _("The LMS did not give the roster; try again later."))
        return redirect(context.klass)
    messages.success(
        request,
        ngettext(
            "The LMS listed %(count)d member; the roster follows it.",
            "The LMS listed %(count)d members; the roster follows it.",
            filled.listed,
        )
        % {"count": filled.listed},
    )
    if filled.left:
        messages.info(
            request,
            ngettext(
                "%(count)d member who left the course left the class; their attempts stay.",
                "%(count)d members who left the course left the class; their attempts stay.",
                filled.left,
            )
            % {"count": filled.left},
        )
    return redirect(context.klass)
