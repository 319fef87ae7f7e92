"""The shared cache and the rate limits' counts in a real Redis, and what a Redis down costs:
a miss, or a count in the database, within its short timeouts, never an error."""

import os
import signal
import threading
import time
from datetime import timedelta

import pytest

from quizsite import ratelimit, sharedcache
from quizsite.models import RateLimitHit
from quizsite.sharedcache import ForgivingRedisCache
from tests.quizsite.servers import ThrowawayRedis

# Its tests share one redis-server, which they stop and freeze: they take turns, on one worker.
pytestmark = pytest.mark.xdist_group("redis")


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    server = ThrowawayRedis(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def redis(redis_server, settings, monkeypatch):
    """Redis running and empty, the site's REDIS_URL, and no failure remembered."""
    if redis_server.process is None:
        redis_server.start()
    monkeypatch.setattr(sharedcache, "_down_until", 0.0)
    settings.REDIS_URL = redis_server.url
    sharedcache.client().flushdb()
    yield redis_server
    if redis_server.process is not None:
        os.kill(redis_server.process.pid, signal.SIGCONT)


def test_the_cache_keeps_parts_in_redis_and_a_redis_stopped_is_a_miss(redis):
    cache = ForgivingRedisCache(redis.url, {"KEY_PREFIX": "quizsite"})
    cache.set("part:x", "<p>kept</p>", 60)
    assert cache.get("part:x") == "<p>kept</p>"
    assert sharedcache.client().exists("quizsite:1:part:x")

    redis.stop()
    started = time.monotonic()
    assert cache.get("part:x") is None
    assert cache.get("part:x", "default") == "default"
    cache.set("part:y", "<p>lost</p>", 60)  # Nothing, no error.
    assert cache.get_many(["part:x"]) == {}
    assert time.monotonic() - started < 0.5
    assert sharedcache.unavailable()
    assert sharedcache.client() is None  # The rate limits count in the database meanwhile.

    redis.start()
    time.sleep(sharedcache.PAUSE)
    cache.set("part:y", "<p>kept again</p>", 60)
    assert cache.get("part:y") == "<p>kept again</p>"


def test_a_redis_gone_silent_costs_one_timeout_then_nothing_for_the_pause(redis):
    cache = ForgivingRedisCache(redis.url, {})
    cache.set("part:x", "<p>kept</p>", 60)
    os.kill(redis.process.pid, signal.SIGSTOP)  # Up, connected, and answering nothing.
    started = time.monotonic()
    assert cache.get("part:x") is None
    waited = time.monotonic() - started
    assert sharedcache.SOCKET_TIMEOUT <= waited < 2 * sharedcache.SOCKET_TIMEOUT + 0.2
    started = time.monotonic()
    for _ in range(100):
        assert cache.get("part:x") is None
    assert time.monotonic() - started < 0.05


def test_rate_limits_count_in_redis_and_let_exactly_the_limit_through_in_parallel(redis, db):
    passed = []
    barrier = threading.Barrier(20)

    def start() -> None:
        barrier.wait()
        passed.append(ratelimit.hit("starts:a", limit=5, per=timedelta(hours=1)))

    threads = [threading.Thread(target=start) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(passed) == [False] * 15 + [True] * 5
    assert RateLimitHit.objects.count() == 0  # Nothing written to the database.
    assert sharedcache.client().zcard("quizsite:rate:starts:a") == 5  # Refused hits removed.
    assert 3590 <= ratelimit.retry_after("starts:a", limit=5, per=timedelta(hours=1)) <= 3600
    assert ratelimit.hit("starts:b", limit=5, per=timedelta(hours=1))  # Another key.
    # Hits older than the window go.
    assert ratelimit.hit("starts:c", limit=1, per=timedelta(seconds=1))
    assert not ratelimit.hit("starts:c", limit=1, per=timedelta(seconds=1))
    time.sleep(1.05)
    assert ratelimit.hit("starts:c", limit=1, per=timedelta(seconds=1))


def test_rate_limits_fall_back_to_the_database_while_redis_is_down(redis, db):
    redis.stop()
    assert [ratelimit.hit("signup:a", limit=2, per=timedelta(hours=1)) for _ in range(3)] == [
        True,
        True,
        False,
    ]
    assert RateLimitHit.objects.filter(key="signup:a").count() == 2
    assert ratelimit.retry_after("signup:a", limit=2, per=timedelta(hours=1)) > 3500


def test_a_redis_that_answers_errors_is_a_miss_and_the_limits_count_in_the_database(redis, db):
    admin = sharedcache.client()
    admin.config_set("maxmemory-policy", "noeviction")
    admin.config_set("maxmemory", "1")  # Every write refused: "OOM command not allowed".
    try:
        cache = ForgivingRedisCache(redis.url, {})
        cache.set("part:x", "<p>not kept</p>", 60)
        assert cache.get("part:x") is None
        assert ratelimit.hit("signup:b", limit=1, per=timedelta(hours=1))
        assert RateLimitHit.objects.filter(key="signup:b").count() == 1
    finally:
        admin.config_set("maxmemory", "64mb")
        admin.config_set("maxmemory-policy", "allkeys-lru")
