"""Generated input on every URL pattern of the site and the admin: no 5xx, and a refused
request changes nothing that was recorded.

Hypothesis walks the URL patterns Django resolves (so a new page is fuzzed without being
listed here), fills each placeholder with generated values or real ones (so requests also
reach past the lookups), and sends GET and POST requests with generated query strings,
forms, cookies and Accept-Language headers, anonymous and as an editor. Derandomized, so
every run sends the same requests; the number of examples bounds its time.
"""

import string
from collections import Counter

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import LocalePrefixPattern, RegexPattern, RoutePattern
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guides.models import GuidePath
from quizzes.models import Answer, AnswerChoice, Attempt, Choice, Question, Quiz
from tests.factories import make_gaps, make_guide, make_quiz, make_staff, start

EXAMPLES = 25
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
RECORDED = (GuidePath, Quiz, Question, Choice, Attempt, Answer, AnswerChoice)
FIELDS = [
    "choice",
    "start_over",
    "username",
    "password",
    "password1",
    "password2",
    "date_from",
    "date_to",
    "language",
    "attempts",
    "sort",
    "page",
    "practice",
    "next",
    "file",
    "action",
    "_selected_action",
    "kind",
    "gaps",
    "choices-0-gap",
]
sent: Counter[str] = Counter()


def _route(pattern) -> str:
    if isinstance(pattern, LocalePrefixPattern):
        return "<lang>/"
    if isinstance(pattern, RoutePattern):
        return str(pattern._route)
    assert isinstance(pattern, RegexPattern)
    return "<regex>" if pattern.regex.groups else pattern._regex.strip("^$")


def _routes(patterns=None, prefix: str = "") -> list[str]:
    routes = []
    for entry in patterns if patterns is not None else get_resolver().url_patterns:
        if isinstance(entry, URLResolver):
            routes += _routes(entry.url_patterns, prefix + _route(entry.pattern))
        elif isinstance(entry, URLPattern):
            routes.append(prefix + _route(entry.pattern))
    return sorted(set(routes))


SITE = [route for route in _routes() if not route.startswith("admin/")]
ADMIN = [route for route in _routes() if route.startswith("admin/")]

text = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40)
values = st.one_of(
    text,
    st.integers(min_value=-(10**20), max_value=10**20).map(str),
    st.sampled_from(["", "0", "-1", "1e9", "2026-02-30", "9999-12-31", "../", "%00", "é"]),
)
form = st.dictionaries(
    st.one_of(st.sampled_from(FIELDS), text),
    st.one_of(values, st.lists(values, max_size=3)),
    max_size=6,
)
# A header as a WSGI server hands it over: any bytes but line breaks, decoded as Latin-1.
header = st.binary(max_size=60).map(
    lambda raw: raw.replace(b"\r", b"").replace(b"\n", b"").decode("latin-1")
)


def _placeholder(kind: str, real: dict) -> st.SearchStrategy[str]:
    name = kind.strip("<>").split(":")[-1]
    converter = kind.strip("<>").split(":")[0] if ":" in kind else "str"
    generated = {
        "slug": st.from_regex(r"[-a-zA-Z0-9_]{1,30}", fullmatch=True),
        "uuid": st.uuids().map(str),
        "int": st.integers(min_value=0, max_value=10**25).map(str),
        "path": text.filter(bool).map(lambda value: value.replace("?", "").replace("#", "")),
    }.get(converter, st.text(string.ascii_letters + string.digits + "-_.~é", min_size=1))
    return st.one_of(st.sampled_from(real.get(name, real.get(converter, ["x"]))), generated)


def _url(route: str, real: dict) -> st.SearchStrategy[str]:
    parts = []
    for piece in route.replace(">", ">\0").replace("<", "\0<").split("\0"):
        if piece == "<lang>":
            parts.append(st.sampled_from(["en", "fr"]))
        elif piece == "<regex>":
            parts.append(st.sampled_from(["quizzes/", "auth/", "nope/", "quizzes/quiz/x/"]))
        elif piece.startswith("<"):
            parts.append(_placeholder(piece, real))
        else:
            parts.append(st.just(piece))
    return st.tuples(*parts).map(lambda pieces: "/" + "".join(pieces))


def _recorded() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in RECORDED}


@pytest.fixture
def site(db, client):
    guide = make_guide()
    quiz = make_quiz(questions=3, guide=guide)
    gaps = make_gaps(quiz, 3)  # Its page's inputs, and its admin page's kinds and gaps.
    attempt = start(client, quiz)
    return {
        "slug": [quiz.slug, guide.slug, "nope"],
        "public_id": [str(attempt.public_id)],
        "uuid": [str(attempt.public_id)],
        "number": ["1", "2", "3", "4"],
        "object_id": [str(quiz.pk), str(attempt.pk), str(gaps.pk), "0"],
        "cookies": client.cookies,
    }


def _send(client: Client, method: str, url: str, data: dict, headers: dict):
    if method == "GET":
        return client.get(url, data, headers=headers)
    return client.post(url, data, headers=headers)


def _check(client: Client, route: str, method: str, url: str, data: dict, headers: dict):
    before = _recorded()
    response = _send(client, method, url, data, headers)
    sent[route] += 1
    assert response.status_code < 500, (method, url, data, headers)
    if response.status_code >= 400:
        assert _recorded() == before, (method, url, data)


request = st.fixed_dictionaries(
    {
        "method": st.sampled_from(["GET", "POST"]),
        "data": form,
        "headers": st.fixed_dictionaries(
            {},
            optional={
                "accept-language": st.one_of(header, st.sampled_from(["fr-CA,fr;q=0.9", "*"])),
                "cookie": st.one_of(header.map(lambda value: f"learner={value}"), header),
            },
        ),
    }
)


@pytest.mark.parametrize("route", SITE)
def test_site_pages_never_fail(route, site):
    learner = Client(raise_request_exception=False)
    learner.cookies = site["cookies"]  # The attempt's owner, unless a cookie is generated.
    if "reports/" in route:  # Past the sign-in, to the filters.
        learner.force_login(make_staff("fuzz-instructor", "Instructors"))

    @FUZZ
    @given(url=_url(route, site), sent_request=request)
    def fuzz(url, sent_request):
        _check(learner, route, **sent_request | {"url": url})

    fuzz()


@pytest.mark.parametrize("route", ADMIN)
def test_admin_pages_never_fail_for_editors(route, site):
    editor = Client(raise_request_exception=False)
    editor.force_login(make_staff("fuzz-editor", "Editors"))

    @settings(FUZZ, max_examples=8)
    @given(url=_url(route, site), sent_request=request)
    def fuzz(url, sent_request):
        _check(editor, route, **sent_request | {"url": url})

    fuzz()


def test_admin_import_never_fails(site):
    editor = Client(raise_request_exception=False)
    editor.force_login(make_staff("fuzz-editor", "Editors"))

    @FUZZ
    @given(
        content=st.one_of(
            st.binary(max_size=2000),
            text.map(str.encode),
            st.recursive(
                st.one_of(st.none(), st.booleans(), st.integers(), text),
                lambda inner: (
                    st.lists(inner, max_size=3)
                    | st.dictionaries(
                        st.sampled_from(["slug", "title", "questions", "choices", "x"]),
                        inner,
                        max_size=3,
                    )
                ),
                max_leaves=20,
            ).map(lambda data: yaml.safe_dump(data).encode()),
        ),
        name=st.sampled_from(["quiz.yaml", "quiz.zip", "quiz.txt", "quiz.xml", "quiz.gift"]),
    )
    def fuzz(content, name):
        upload = SimpleUploadedFile(name, content)
        _check(editor, "admin import", "POST", "/admin/quizzes/quiz/import/", {"file": upload}, {})

    fuzz()
