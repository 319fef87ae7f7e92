"""Throttled sign-in: django-axes counts the failures; a password is checked only within them.

axes records a failed sign-in after the password check, so on its own, guesses sent in
parallel all pass its check before the first failure is recorded. Each sign-in here first
marks itself in flight (for its username and for its client address, rows shared by every
worker and host) and goes on to the password check only while the failures axes recorded
plus the sign-ins in flight stay within AXES_FAILURE_LIMIT. Its marks go when axes has
recorded the failure, or at once on success: unlocking an account is axes' own reset.
"""

import math
from datetime import timedelta

from axes.backends import AxesBackend
from axes.exceptions import AxesBackendPermissionDenied
from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_cool_off
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.db import DatabaseError
from django.db.models import Max, Q
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.translation import ngettext

from .clientip import client_ip
from .models import RateLimitHit
from .ratelimit import hashed_key, too_many_requests

# A password check never takes this long: older marks are from a worker that died.
IN_FLIGHT = timedelta(seconds=60)


class ThrottledModelBackend(AxesBackend):
    """Django's ModelBackend behind axes' lockout and the in-flight marks: one backend, so
    `login()` after sign-up needs no backend argument."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:  # not an HTTP sign-in (a script): no client to throttle
            return ModelBackend.authenticate(self, request, username, password, **kwargs)
        super().authenticate(request, username=username, password=password, **kwargs)
        if settings.AXES_ENABLED:
            if not _mark_in_flight(request, username):
                request.axes_locked_out = True
                raise AxesBackendPermissionDenied("too many sign-ins in flight")
        user = ModelBackend.authenticate(self, request, username, password, **kwargs)
        if user is not None:
            release_in_flight(request)
        return user


def _mark_in_flight(request: HttpRequest, username: str | None) -> bool:
    keys = [hashed_key("signin-user", username or ""), hashed_key("signin-ip", client_ip(request))]
    now = timezone.now()
    RateLimitHit.objects.filter(key__in=keys, at__lt=now - IN_FLIGHT).delete()
    marks = RateLimitHit.objects.bulk_create(RateLimitHit(key=key, at=now) for key in keys)
    # In flight first, failures second: a sign-in that ends in between has its failure
    # recorded before its marks go, so it is counted at least once.
    in_flight = max(
        RateLimitHit.objects.filter(key=key, at__gte=now - IN_FLIGHT).count() for key in keys
    )
    failures = AxesProxyHandler.get_failures(request, {"username": username})
    if failures + in_flight > settings.AXES_FAILURE_LIMIT:
        RateLimitHit.objects.filter(pk__in=[mark.pk for mark in marks]).delete()
        return False
    request.signin_marks = [mark.pk for mark in marks]
    return True


def release_in_flight(request: HttpRequest | None, **kwargs) -> None:
    """Receiver of user_login_failed, connected after axes' own, so after its record."""
    marks = getattr(request, "signin_marks", None)
    if marks:
        RateLimitHit.objects.filter(pk__in=marks).delete()
        request.signin_marks = []


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: dict | None
) -> HttpResponse:
    """axes' lockout: 429, Retry-After and the site's page saying when to try again."""
    cool_off = get_cool_off(request) or timedelta(0)
    username = (credentials or {}).get("username")
    try:
        latest = AccessAttempt.objects.filter(
            Q(username=username) | Q(ip_address=client_ip(request))
        ).aggregate(latest=Max("attempt_time"))["latest"]
    except DatabaseError:  # axes' middleware runs after the view: no 503 page from here
        latest = None
    until = (latest or timezone.now()) + cool_off
    seconds = max(1, math.ceil((until - timezone.now()).total_seconds()))
    minutes = math.ceil(seconds / 60)
    message = ngettext(
        "Too many failed sign-ins for this account or from your address. "
        "You can try again in %(minutes)d minute.",
        "Too many failed sign-ins for this account or from your address. "
        "You can try again in %(minutes)d minutes.",
        minutes,
    ) % {"minutes": minutes}
    return too_many_requests(request, seconds, message)
