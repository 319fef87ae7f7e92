"""The writes of LTI: what a checked launch makes of its claims, the scores sent back to the
platform (Assignment and Grade Services) and the roster brought from it (Names and Role
Provisioning Services)."""

import hashlib
import logging
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.text import slugify
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.exception import LtiException
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem
from pylti1p3.names_roles import NamesRolesProvisioningService
from pylti1p3.service_connector import ServiceConnector
from requests import RequestException

from quizzes.classes.services import new_class_code
from quizzes.lti.models import Context, Identity, Platform, ResourceLink, Score
from quizzes.lti.tool import TimedSession, registration_of
from quizzes.models import Assignment, Attempt, Class, Membership, Quiz, grade_of

log = logging.getLogger(__name__)

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
# Who teaches a course: its instructors and administrators (LIS roles, with the short forms
# LTI 1.3 allows in a membership).
TEACHING_ROLES = {
    "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor",
    "http://purl.imsglobal.org/vocab/lis/v2/membership#Administrator",
    "Instructor",
    "Administrator",
}


class NoQuiz(Exception):
    """The launch names no published quiz of the site."""


class NoTarget(NoQuiz):
    """The launch names no quiz at all: a link of the course to the site itself."""


class NoContext(Exception):
    """The launch comes from no course: a class needs one."""


def _connector(platform: Platform) -> ServiceConnector:
    return ServiceConnector(registration_of(platform), TimedSession())


def teaches(roles: list[str]) -> bool:
    return any(role in TEACHING_ROLES for role in roles)


@dataclass(frozen=True)
class Launched:
    """What a launch made or found: who it signs in, and the assignment it opens, if any."""

    user: AbstractBaseUser
    context: Context
    link: ResourceLink | None
    teaching: bool

    @property
    def klass(self) -> Class:
        return self.context.klass

    @property
    def assignment(self) -> Assignment | None:
        return None if self.link is None else self.link.assignment

    @property
    def lineitem_missing(self) -> bool:
        """The link has no gradebook column yet, and the platform lets the site make one."""
        link = self.link
        return link is not None and not link.lineitem_url and bool(link.lineitems_url)


def quiz_of(claims: dict) -> Quiz:
    """The published quiz a resource link targets: its `quiz` custom parameter, which deep
    linking sets, or which the instructor types in the LMS (quiz=<slug>)."""
    slug = str((claims.get(CLAIM + "custom") or {}).get("quiz", "")).strip()
    if not slug:
        raise NoTarget
    quiz = Quiz.objects.filter(slug=slug, is_published=True).first()
    if quiz is None:
        raise NoQuiz
    return quiz


def _username(platform: Platform, sub: str, names: dict) -> str:
    """Unique by its platform and a digest of the LMS's user id, readable by the name:
    "grace-hopper.lti3.9f86d081884c7d65". Pages list the account by its name."""
    name = slugify(f"{names.get('first_name', '')} {names.get('last_name', '')}")[:60]
    digest = hashlib.sha256(sub.encode()).hexdigest()[:16]
    return f"{name + '.' if name else ''}lti{platform.pk}.{digest}"


def _names_of(person: dict) -> dict:
    """An account's name and email as the platform gives them, in a launch's claims or a
    roster's member: the given and family names, else the whole name (OpenID Connect's
    `name`) as the first name; what it leaves out is left out."""
    given = str(person.get("given_name") or "").strip()
    family = str(person.get("family_name") or "").strip()
    if not given and not family:
        given = str(person.get("name") or "").strip()
    names = {"first_name": given[:150], "last_name": family[:150]} if given or family else {}
    email = str(person.get("email") or "").strip()[:254]
    return names | ({"email": email} if email else {})


def _user_of(platform: Platform, claims: dict) -> AbstractBaseUser:
    """The account of the platform's user: made at their first launch, without a password
    (they sign in through the LMS only); their name and email kept as the LMS gives them."""
    return _account(platform, str(claims["sub"]), _names_of(claims))


def _account(platform: Platform, sub: str, names: dict) -> AbstractBaseUser:
    """The platform's user's account, made if new; the names it is given replace its own
    (the first and last name together), one query more when they change."""
    identity = Identity.objects.select_related("user").filter(platform=platform, sub=sub).first()
    if identity is not None:
        user = identity.user
        changed = [k for k, v in names.items() if getattr(user, k) != v]
        if changed:
            for name in changed:
                setattr(user, name, names[name])
            user.save(update_fields=changed)
        return user
    user = get_user_model()(username=_username(platform, sub, names), **names)
    user.set_unusable_password()
    user.save()
    Identity.objects.create(platform=platform, sub=sub, user=user)
    return user


def _class_of(platform: Platform, claims: dict) -> Context:
    context = claims.get(CLAIM + "context") or {}
    if not context.get("id"):
        raise NoContext
    deployment_id = str(claims[CLAIM + "deployment_id"])
    found = (
        Context.objects.select_related("klass")
        .filter(platform=platform, deployment_id=deployment_id, context_id=str(context["id"]))
        .first()
    )
    memberships_url = str((claims.get(NRPS_CLAIM) or {}).get("context_memberships_url", ""))
    if found is not None:
        if memberships_url and found.memberships_url != memberships_url:
            found.memberships_url = memberships_url
            found.save(update_fields=["memberships_url"])
        return found
    # The class is the LMS's: learners come by launches and the roster, not by a code.
    name = str(context.get("title") or context.get("label") or context["id"])[:200]
    klass = Class.objects.create(
        name=name, code=new_class_code(), token=uuid.uuid4().hex, joining_open=False
    )
    return Context.objects.create(
        platform=platform,
        deployment_id=deployment_id,
        context_id=str(context["id"]),
        klass=klass,
        memberships_url=memberships_url,
    )


def _member(klass: Class, user: AbstractBaseUser, roles: list[str]) -> bool:
    if teaches(roles):
        klass.instructors.add(user)
        return True
    Membership.objects.get_or_create(klass=klass, learner=user)
    return False


def _lineitems_of(claims: dict) -> tuple[str, str]:
    """The link's line item, as the launch gives it; else the course's line items, where the
    site may find or make it (their URL and the scope to make one)."""
    ags = claims.get(AGS_CLAIM) or {}
    lineitem = str(ags.get("lineitem", ""))
    may_make = LINEITEM_SCOPE in (ags.get("scope") or [])
    lineitems = str(ags.get("lineitems", "")) if may_make and not lineitem else ""
    return lineitem, lineitems


def _link_of(context: Context, claims: dict, quiz: Quiz, user) -> ResourceLink:
    link_id = str(claims[CLAIM + "resource_link"]["id"])
    lineitem, lineitems = _lineitems_of(claims)
    link = ResourceLink.objects.select_related("assignment").filter(
        context=context, link_id=link_id
    )
    found = link.first()
    if found is not None:
        changed = {}
        if lineitem and found.lineitem_url != lineitem:
            changed["lineitem_url"] = lineitem
        if lineitems and found.lineitems_url != lineitems:
            changed["lineitems_url"] = lineitems
        if changed:
            for name, value in changed.items():
                setattr(found, name, value)
            found.save(update_fields=list(changed))
        return found
    assignment = Assignment.objects.create(
        klass=context.klass, quiz=quiz, created_by=user if teaches(roles_of(claims)) else None
    )
    return ResourceLink.objects.create(
        context=context,
        link_id=link_id,
        assignment=assignment,
        lineitem_url=lineitem,
        lineitems_url=lineitems,
    )


def roles_of(claims: dict) -> list[str]:
    return [str(role) for role in claims.get(CLAIM + "roles") or []]


def launch_accept(*, platform: Platform, claims: dict) -> Launched:
    """Record what a checked resource link launch says: the account, the course's class and
    the user's place in it, the link's assignment of its quiz. An instructor's launch of a
    link to no quiz records their account and class, and no link. Raises NoContext, or for
    a learner's launch of a link to no quiz NoQuiz (NoTarget if it names none), and then
    records nothing."""
    try:
        quiz = quiz_of(claims)
    except NoQuiz:
        if not teaches(roles_of(claims)):
            raise
        quiz = None
    return _twice(lambda: _accept(platform, claims, quiz))


def context_accept(*, platform: Platform, claims: dict) -> Launched:
    """A deep linking launch: the instructor's account and the course's class, no link yet.
    Raises NoContext."""
    return _twice(lambda: _accept(platform, claims, None))


def _twice(accept):
    """Two first launches racing (a double click, two tabs): the database keeps one account,
    class and link, the loser's transaction fails on it, and its second run finds them."""
    try:
        return accept()
    except IntegrityError:
        return accept()


@transaction.atomic
def _accept(platform: Platform, claims: dict, quiz: Quiz | None) -> Launched:
    user = _user_of(platform, claims)
    context = _class_of(platform, claims)
    teaching = _member(context.klass, user, roles_of(claims))
    link = None if quiz is None else _link_of(context, claims, quiz, user)
    return Launched(user=user, context=context, link=link, teaching=teaching)


def score_queue(*, attempt: Attempt) -> Score | None:
    """The outbox row of a finished attempt at an LTI assignment that has a line item, or may
    have one made (the sender finds or makes it first): the learner's grade at the assignment
    (by its grading method, as a percent) after it. None for any other attempt. Queuing
    twice keeps one row."""
    if attempt.assignment_id is None or attempt.completed_at is None:
        return None
    link = (
        ResourceLink.objects.select_related("assignment", "context__platform")
        .filter(assignment=attempt.assignment_id)
        .exclude(lineitem_url="", lineitems_url="")
        .first()
    )
    identity = Identity.objects.filter(user=attempt.user_id).first()
    if link is None or identity is None:
        return None
    finished = Attempt.objects.filter(
        assignment=attempt.assignment_id, user=attempt.user_id, completed_at__isnull=False
    ).order_by("completed_at", "pk")
    percents = [100 * float(a.score) / a.max_score for a in finished if a.max_score]
    grade = grade_of(percents, link.assignment.grading) or 0
    score, _made = Score.objects.get_or_create(
        attempt=attempt,
        defaults={
            "link": link,
            "sub": identity.sub,
            "score_given": round(grade, 2),
            "score_maximum": 100,
            "timestamp": attempt.completed_at,
        },
    )
    return score


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def link_lineitem(*, link_id: int) -> str:
    """The URL of a link's line item (its gradebook column): the one its launch gave, else
    the course's line item of the link's id (Assignment and Grade Services), else one made
    for it, labelled with the quiz's title, out of 100. Kept on the link; the link's row is
    locked meanwhile, so two workers make one column. Raises LtiException or
    RequestException if the platform won't tell or make it."""
    with transaction.atomic():
        link = (
            ResourceLink.objects.select_for_update(of=("self",))
            .select_related("context__platform", "assignment__quiz")
            .get(pk=link_id)
        )
        if link.lineitem_url or not link.lineitems_url:
            return link.lineitem_url
        service = AssignmentsGradesService(
            _connector(link.context.platform),
            {"scope": [LINEITEM_SCOPE, SCORE_SCOPE], "lineitems": link.lineitems_url},
        )
        wanted = (
            LineItem()
            .set_resource_link_id(link.link_id)
            .set_label(link.assignment.quiz.title)
            .set_score_maximum(100)
        )
        found = service.find_or_create_lineitem(wanted, find_by="resource_link_id")
        url = str(found.get_id() or "")
        if not url:
            raise LtiException("The platform's line item has no id")
        ResourceLink.objects.filter(pk=link.pk).update(lineitem_url=url)
        return url


def score_send(*, score: Score) -> bool:
    """POST a pending score to its line item, found or made first if the launch gave none;
    whether the platform took it. A refusal or a platform out of reach leaves it pending,
    with the error and one more try counted."""
    link = score.link
    platform = link.context.platform
    grade = (
        Grade()
        .set_score_given(float(score.score_given))
        .set_score_maximum(float(score.score_maximum))
        .set_timestamp(_iso(score.timestamp))
        .set_activity_progress("Completed")
        .set_grading_progress("FullyGraded")
        .set_user_id(score.sub)
    )
    try:
        lineitem = link.lineitem_url or link_lineitem(link_id=link.pk)
        service = AssignmentsGradesService(
            _connector(platform), {"scope": [SCORE_SCOPE], "lineitem": lineitem}
        )
        service.put_grade(grade)
    except (LtiException, RequestException, ValueError, KeyError) as error:
        log.warning("LTI score %s not taken by %s: %s", score.pk, platform, error)
        Score.objects.filter(pk=score.pk).update(
            tries=score.tries + 1, last_error=str(error)[:2000]
        )
        return False
    Score.objects.filter(pk=score.pk).update(
        tries=score.tries + 1, last_error="", sent_at=timezone.now()
    )
    return True


def scores_send(*, limit: int = 500) -> tuple[int, int]:
    """Send the pending scores, oldest first: (sent, still pending)."""
    pending = Score.objects.pending().select_related("link__context__platform")[:limit]
    sent = sum(score_send(score=score) for score in pending)
    return sent, Score.objects.pending().count()


# A learner's launch asks for the roster once an hour at most; an instructor's, each time.
ROSTER_EVERY = timedelta(hours=1)


def roster_due(*, context: Context, teaching: bool) -> bool:
    """Whether a launch should queue the reading of the course's roster, which the platform
    gives (Names and Role Provisioning Services): an instructor's launch always, a learner's
    when no launch asked within the hour. Marks the time it asks; one query."""
    if not context.memberships_url:
        return False
    now = timezone.now()
    contexts = Context.objects.filter(pk=context.pk)
    if not teaching:
        contexts = contexts.filter(
            Q(roster_asked_at=None) | Q(roster_asked_at__lte=now - ROSTER_EVERY)
        )
    return contexts.update(roster_asked_at=now) > 0


@dataclass(frozen=True)
class RosterFilled:
    listed: int  # The members the platform listed, active or not.
    left: int  # Who left the class as they left the course.


def roster_fill(*, context: Context) -> RosterFilled:
    """The course's members from the platform (Names and Role Provisioning Services): each
    active one gets their account, learners join the class and instructors teach it; the
    platform's accounts in the class that it no longer lists as active (gone from the course,
    or Inactive) leave it, their attempts kept. A list without any active member changes
    nothing: a course has its instructor at least. Raises LtiException or RequestException
    if the roster can't be read."""
    service = NamesRolesProvisioningService(
        _connector(context.platform),
        {"context_memberships_url": context.memberships_url},
    )
    members = service.get_members()
    active = [m for m in members if m.get("status", "Active") == "Active"]
    if not active:
        return RosterFilled(listed=len(members), left=0)
    klass = context.klass
    with transaction.atomic():
        kept = []
        for member in active:
            user = _account(context.platform, str(member["user_id"]), _names_of(member))
            _member(klass, user, [str(r) for r in member.get("roles", [])])
            kept.append(user.pk)
        gone = Identity.objects.filter(platform=context.platform).exclude(user__in=kept)
        left, _rows = Membership.objects.filter(
            klass=klass, learner__in=gone.values("user")
        ).delete()
        teaching = Class.instructors.through.objects.filter(
            class_id=klass.pk, user__in=gone.values("user")
        )
        left += teaching.delete()[0]
    return RosterFilled(listed=len(members), left=left)
