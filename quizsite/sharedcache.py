"""The shared cache, when there is one (REDIS_URL): Redis, whose going down costs speed only.

`ForgivingRedisCache` is Django's own Redis backend, but a Redis that can't be reached,
doesn't answer within its short socket timeouts, or answers an error, is a miss on read and
nothing on write,
never an error: what is kept there (the learner pages' parts, quizzes/learning/parts.py) is
made again. After a failure, Redis is left alone for `PAUSE` seconds, so that a Redis host
gone silent costs each request nothing rather than a timeout each; then the next request
tries again. `client()` is a plain client of the same server, with the same timeouts, for
the rate limits' counts (quizsite/ratelimit.py), which fall back to the database's while
Redis is down (`unavailable()`).
"""

import functools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import redis
from django.conf import settings
from django.core.cache.backends.redis import RedisCache

logger = logging.getLogger(__name__)

# Each command waits at most this long for Redis (a connection, then each answer), in seconds.
SOCKET_TIMEOUT = 0.25
PAUSE = 1.0  # After a failure, Redis is not asked again for this long.
# Down, silent, or answering an error: out of memory (a `maxmemory` without eviction), a
# replica that takes no writes after a failover…
FAILURES = (redis.exceptions.RedisError,)

_down_until = 0.0
_lock = threading.Lock()


def unavailable() -> bool:
    """Whether Redis failed less than `PAUSE` seconds ago."""
    return time.monotonic() < _down_until


def failed(error: Exception) -> None:
    """Note that Redis failed: log it once per pause, and leave it alone for `PAUSE`."""
    global _down_until
    with _lock:
        if unavailable():
            return
        _down_until = time.monotonic() + PAUSE
    logger.warning("Redis is unreachable, working without it for %.0f s: %s", PAUSE, error)


def options() -> dict[str, Any]:
    """The connection options of every Redis client of the site."""
    return {"socket_timeout": SOCKET_TIMEOUT, "socket_connect_timeout": SOCKET_TIMEOUT}


@functools.cache
def _client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, **options())


def client() -> redis.Redis | None:
    """A client of settings.REDIS_URL's server, or None without one or while it is down."""
    if not settings.REDIS_URL or unavailable():
        return None
    return _client(settings.REDIS_URL)


def _forgiving(method: Callable, missed: Any = None) -> Callable:
    """`method`, answering `missed` (or what it makes) when Redis can't be reached."""

    def miss() -> Any:
        return missed() if callable(missed) else missed

    @functools.wraps(method)
    def wrapped(*args, **kwargs):
        if unavailable():
            return miss()
        try:
            return method(*args, **kwargs)
        except FAILURES as error:
            failed(error)
            return miss()

    return wrapped


class ForgivingRedisCache(RedisCache):
    """Django's Redis cache, in which a Redis down is a miss on read and nothing on write."""

    def __init__(self, server, params):
        params = {**params, "OPTIONS": {**options(), **params.get("OPTIONS", {})}}
        super().__init__(server, params)

    get_many = _forgiving(RedisCache.get_many, missed=dict)
    has_key = _forgiving(RedisCache.has_key, missed=False)
    set = _forgiving(RedisCache.set)
    add = _forgiving(RedisCache.add, missed=False)
    touch = _forgiving(RedisCache.touch, missed=False)
    delete = _forgiving(RedisCache.delete, missed=False)

    def get(self, key, default=None, version=None):  # A miss gives the default.
        if unavailable():
            return default
        try:
            return super().get(key, default, version)
        except FAILURES as error:
            failed(error)
            return default
