"""Limits on how often a client may do something, counted in Redis or in the database.

`ratelimit("signup", limit=10, per=3600)` on a view refuses more than 10 POSTs an hour from
one client address (quizsite.clientip) with a 429 page saying when to try again. A hit is
added before it is counted: of requests racing in parallel, only the first `limit` see a
count within the limit, so no race lets more through.

With REDIS_URL, the hits are kept in Redis (a sorted set per key, scored by time; one
MULTI of four commands per hit), shared by every process and host as the database's are,
without writing to it. While Redis can't be reached, the hits are counted in the database
instead (quizsite/sharedcache.py): the limits hold, each store counting its own hits, so a
client may get up to twice its limit across an outage, never an error.
"""

import functools
import hashlib
import math
import time
import uuid
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import ngettext

from . import sharedcache
from .clientip import client_ip
from .models import RateLimitHit


def hashed_key(scope: str, value: str) -> str:
    """A key of fixed length whatever the client sent (a username, an address)."""
    return f"{scope}:{hashlib.sha256(value.encode()).hexdigest()[:64]}"


def hit(key: str, *, limit: int, per: timedelta) -> bool:
    """Count one more request under `key` if fewer than `limit` were counted within `per`:
    in Redis when there is one and it answers, else in the database."""
    if (redis := sharedcache.client()) is not None:
        try:
            return _redis_hit(redis, key, limit=limit, per=per)
        except sharedcache.FAILURES as error:
            sharedcache.failed(error)
    return _database_hit(key, limit=limit, per=per)


def _redis_hit(redis, key: str, *, limit: int, per: timedelta) -> bool:
    """The hit is added to the key's set, which is counted in the same transaction: a refused
    hit is removed again. Hits older than `per` go first; the set itself after `per`."""
    now = time.time()
    name, member = f"quizsite:rate:{key}", f"{now:.6f}:{uuid.uuid4().hex[:8]}"
    with redis.pipeline(transaction=True) as pipe:
        pipe.zremrangebyscore(name, "-inf", now - per.total_seconds())
        pipe.zadd(name, {member: now})
        pipe.zcard(name)
        pipe.expire(name, math.ceil(per.total_seconds()))
        counted = pipe.execute()[2]
    if counted <= limit:
        return True
    redis.zrem(name, member)
    return False


def _redis_retry_after(redis, key: str, *, limit: int, per: timedelta) -> int:
    hits = redis.zrange(f"quizsite:rate:{key}", -limit, -limit, withscores=True)
    if not hits:
        return 1
    return max(1, math.ceil(hits[0][1] + per.total_seconds() - time.time()))


def _database_hit(key: str, *, limit: int, per: timedelta) -> bool:
    """The hit is inserted, then counted with every hit committed before the count: a refused
    hit is deleted again, so only the requests let through stay counted. Hits of the same
    scope older than `per` go, whichever client they were for."""
    now = timezone.now()
    scope = key.split(":", 1)[0]
    RateLimitHit.objects.filter(key__startswith=f"{scope}:", at__lt=now - per).delete()
    new = RateLimitHit.objects.create(key=key, at=now)
    if RateLimitHit.objects.filter(key=key, at__gte=now - per).count() <= limit:
        return True
    new.delete()
    return False


def retry_after(key: str, *, limit: int, per: timedelta) -> int:
    """Seconds until the oldest of the last `limit` hits leaves the window."""
    if (redis := sharedcache.client()) is not None:
        try:
            return _redis_retry_after(redis, key, limit=limit, per=per)
        except sharedcache.FAILURES as error:
            sharedcache.failed(error)
    hits = RateLimitHit.objects.filter(key=key, at__gte=timezone.now() - per).order_by("-at")
    oldest = hits.values_list("at", flat=True)[limit - 1 : limit].first()
    if oldest is None:
        return 1
    return max(1, math.ceil((oldest + per - timezone.now()).total_seconds()))


def too_many_requests(request: HttpRequest, seconds: int, message: str) -> HttpResponse:
    """The 429 page, in the page's language, with Retry-After."""
    response = render(request, "429.html", {"message": message}, status=429)
    response["Retry-After"] = str(seconds)
    return response


def try_again_in(seconds: int) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    return ngettext(
        "Too many attempts from your address. You can try again in %(minutes)d minute.",
        "Too many attempts from your address. You can try again in %(minutes)d minutes.",
        minutes,
    ) % {"minutes": minutes}


def ratelimit(
    scope: str,
    *,
    limit: int | str,
    per: int,
    methods: tuple[str, ...] = ("POST",),
    by: Callable[[HttpRequest], str] = client_ip,
):
    """Refuse more than `limit` requests in `per` seconds from one client address (or one
    of what `by` tells of a request: `by=lambda request: str(request.user.pk)`).

    `limit` is a number, or the name of a setting read at each request
    (`limit="SIGNUP_LIMIT_PER_HOUR"`), which tests can then override.
    """
    window = timedelta(seconds=per)

    def decorator(view):
        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if request.method in methods:
                most = getattr(settings, limit) if isinstance(limit, str) else limit
                key = hashed_key(scope, by(request))
                if not hit(key, limit=most, per=window):
                    seconds = retry_after(key, limit=most, per=window)
                    return too_many_requests(request, seconds, try_again_in(seconds))
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
