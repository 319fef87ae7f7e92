"""Every field of every form the site shows, sent with each edge value: never a 5xx, and a
refused request changes nothing that was recorded.

Not a sample: the forms are read from the pages themselves (the learner's pages, the
reports and the editors' admin), so a new form or field is covered without being listed
here, and each of their fields is sent every value of EDGES in turn, the other fields as
the page filled them. Where tests/quizsite/test_fuzz.py generates requests at random, this
walks the whole cross product.
"""

import copy
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

import pytest
import yaml
from django.contrib.admin import site
from django.contrib.auth.models import User
from django.contrib.auth.tokens import default_token_generator
from django.test import Client
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from guides.models import GuidePath
from quizsite.adminsearch import BoundedSearchMixin
from quizzes.classes.services import class_create, class_join
from quizzes.interchange.importing import import_apply, import_plan
from quizzes.interchange.quizfile import QuizFileError
from quizzes.models import (
    Answer,
    AnswerChoice,
    Attempt,
    Choice,
    Class,
    Membership,
    Question,
    Quiz,
)
from tests.factories import (
    answer,
    choice_of,
    make_gaps,
    make_guide,
    make_quiz,
    make_staff,
    start,
)

CSVS = ("report_attempts_csv", "report_questions_csv")
RECORDED = (GuidePath, Quiz, Question, Choice, Attempt, Answer, AnswerChoice, Class, Membership)
# Each field gets all of them, whatever it is meant to hold: a number field a date, a date
# field a 5,000-digit number.
EDGES = [
    "",
    "-1",
    "9223372036854775808",  # One past the largest 64-bit integer.
    "1" + "0" * 5000,  # A 5,000-digit number.
    "1e309",  # Infinite as a float.
    "0001-01-01",
    "9999-12-31",  # The largest date.
    "a\x00b",  # NUL.
    "\ud800",  # A lone surrogate: sent as its (invalid) UTF-8 bytes.
    "x" * 100_000,
    "../%2e%2e/<b>",
]


@dataclass
class Form:
    page: str
    action: str
    method: str
    fields: list[tuple[str, str]] = field(default_factory=list)  # In the page's order.

    @property
    def names(self) -> list[str]:
        """The names to vary: those of an admin inline's first row stand for every row's."""
        names = {}
        for name, _value in self.fields:
            names.setdefault(re.sub(r"-(\d+|__prefix__)-", "-0-", name), name)
        return list(names.values())


class _Forms(HTMLParser):
    """The forms of a page, each field with the value the page gives it (a browser's
    submission: the checked boxes, each select's selected or first option)."""

    def __init__(self, page: str):
        super().__init__()
        self.page = page
        self.forms: list[Form] = []
        self.links: list[Form] = []
        self._select: tuple[str, list[str], str | None] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            action = urljoin(self.page, attrs.get("action") or self.page)
            self.forms.append(Form(self.page, action, (attrs.get("method") or "get").upper()))
        elif tag == "a" and "?" in (attrs.get("href") or ""):  # A link's query is a form too.
            link = urlsplit(urljoin(self.page, attrs["href"]))
            if not link.netloc or link.netloc == "testserver":
                form = Form(self.page, link._replace(query="").geturl(), "GET")
                form.fields = parse_qsl(link.query, keep_blank_values=True)
                self.links.append(form)
        if not self.forms or "name" not in attrs:
            if tag == "option" and self._select is not None:
                self._option(attrs)
            return
        name, current = attrs["name"], self.forms[-1]
        if tag == "input":
            kind = attrs.get("type", "text")
            if kind == "checkbox":  # Sent when ticked; varied all the same.
                current.fields.append(
                    (name, attrs.get("value", "on") if "checked" in attrs else None)
                )
            elif kind == "radio":
                if "checked" in attrs or not any(n == name for n, _v in current.fields):
                    current.fields.append((name, attrs.get("value", "on")))
            elif kind not in ("file", "submit", "button", "image", "reset"):
                current.fields.append((name, attrs.get("value", "")))
        elif tag == "textarea":
            current.fields.append((name, ""))
        elif tag == "select":
            self._select = (name, [], None)
        elif tag == "button" and attrs.get("value") is not None:
            current.fields.append((name, attrs["value"]))

    def _option(self, attrs):
        name, options, selected = self._select
        value = attrs.get("value", "")
        options.append(value)
        if "selected" in attrs:
            selected = value
        self._select = (name, options, selected)

    def handle_endtag(self, tag):
        if tag == "select" and self._select is not None and self.forms:
            name, options, selected = self._select
            if options:
                self.forms[-1].fields.append(
                    (name, selected if selected is not None else options[0])
                )
            self._select = None


def forms_of(client: Client, url: str) -> list[Form]:
    response = client.get(url)
    assert response.status_code == 200, url
    parser = _Forms(url)
    parser.feed(response.content.decode())
    # Signing out would end the walk; the sign-out view takes no field.
    return [form for form in parser.forms + parser.links if "logout" not in form.action]


def _recorded() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in RECORDED}


def _send(client: Client, form: Form, fields: list[tuple[str, str]]):
    body = urlencode(fields, encoding="utf-8", errors="surrogatepass")
    path = urlsplit(form.action)._replace(scheme="", netloc="", query="").geturl()
    if form.method == "GET":
        return client.get(f"{path}?{body}")
    return client.post(path, body, content_type="application/x-www-form-urlencoded")


def _each_edge(client: Client, forms: list[Form], only: set[str] | None = None) -> None:
    """Send every field of every form (those named `only`) each edge value; no 5xx, nothing
    changed by a 4xx."""
    failures = []
    for form in forms:
        for name in form.names:
            if only is not None and name not in only:
                continue
            for edge in EDGES:
                fields = [(n, edge if n == name else value) for n, value in form.fields]
                fields = [(n, value) for n, value in fields if value is not None]
                before = _recorded()
                response = _send(client, form, fields)
                if response.streaming:  # An export: an error while it streams counts too.
                    try:
                        b"".join(response.streaming_content)
                    except Exception as error:
                        failures.append((form.action, name, edge[:20], repr(error)[:80]))
                status = response.status_code
                where = (form.method, form.action, name, edge[:20], status)
                if status >= 500 or (status >= 400 and _recorded() != before):
                    failures.append(where)
    assert not failures, "\n".join(map(repr, failures))


@pytest.fixture
def content(db):
    guide = make_guide()
    quiz = make_quiz(questions=2, guide=guide)
    return guide, quiz


def test_every_learner_form_takes_every_edge_value(content):
    guide, quiz = content
    learner = Client(raise_request_exception=False)
    attempt = start(learner, quiz)
    cloze = make_quiz(slug="cloze", questions=1)
    make_gaps(cloze, 1)  # A form of several inputs in one prompt.
    gaps = start(learner, cloze)
    done = start(learner, make_quiz(slug="done", questions=1))
    answer(learner, done, 1, choice_of(done.quiz, 1, correct=False))
    user = User.objects.create_user("edge-learner", "edge@example.com", "not-used")
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    reset = reverse("password_reset_confirm", args=[uid, default_token_generator.make_token(user)])
    pages = [
        reverse("home"),
        reverse("quiz_detail", args=[quiz.slug]),
        reverse("quiz_start_over", args=[quiz.slug]),
        reverse("guide_detail", args=[guide.slug]),
        attempt.question_url(1),
        gaps.question_url(1),
        reverse("results", args=[done.public_id]),
        reverse("login"),
        reverse("signup"),
        reverse("password_reset"),
        learner.get(reset).url,  # Django's reset page moves its token into the session.
    ]
    forms = [form for page in pages for form in forms_of(learner, page)]
    signed_in = Client(raise_request_exception=False)
    signed_in.force_login(user)
    klass = class_create(name="Edge class", instructor=make_staff("edge-teacher", "Instructors"))
    own = [
        form
        for page in (reverse("account_delete"), reverse("progress"), reverse("class_join"))
        for form in forms_of(signed_in, page)
    ]
    own += forms_of(signed_in, klass.join_url())  # Its form has no field but the token.
    names = {name for form in forms + own for name in form.names}
    assert {"choice", "start_over", "username", "password1", "email", "new_password1"} <= names
    assert {"attempts", "password", "code"} <= names
    _each_edge(learner, forms)
    _each_edge(signed_in, own)


def test_every_instructor_form_takes_every_edge_value(content):
    _guide, quiz = content
    learner = Client()
    attempt = start(learner, quiz)
    answer(learner, attempt, 1, choice_of(quiz, 1, correct=True))
    answer(learner, attempt, 2, choice_of(quiz, 2, correct=False))
    instructor = Client(raise_request_exception=False)
    teacher = make_staff("edge-instructor", "Instructors")
    instructor.force_login(teacher)
    klass = class_create(name="Edge class", instructor=teacher)
    member = User.objects.create_user("edge-member", password="not-used")
    class_join(klass=klass, learner=member)
    forms = forms_of(instructor, reverse("reports"))
    for page in (reverse("classes"), klass.get_absolute_url()):
        forms += forms_of(instructor, page)
    forms += forms_of(instructor, reverse("class_remove", args=[klass.pk, member.pk]))
    # Filtered, so that the links to the exports carry the filters too.
    forms += forms_of(instructor, reverse("report_quiz", args=[quiz.slug]) + "?attempts=all")
    names = {name for form in forms for name in form.names}
    assert {"date_from", "date_to", "language", "attempts", "practice", "sort"} <= names
    assert {"name", "joining"} <= names
    actions = {form.action for form in forms}
    assert {reverse(name, args=[quiz.slug]) for name in CSVS} <= actions
    _each_edge(instructor, forms)


EDITOR_PAGES = {  # The change pages have the add pages' fields, and their saved inlines too.
    "quiz": lambda quiz, guide: reverse("admin:quizzes_quiz_change", args=[quiz.pk]),
    "question": lambda quiz, guide: reverse(
        "admin:quizzes_question_change", args=[quiz.questions.first().pk]
    ),
    "guide path": lambda quiz, guide: reverse("admin:guides_guidepath_change", args=[guide.pk]),
    "quiz list": lambda quiz, guide: reverse("admin:quizzes_quiz_changelist"),
}
EDITOR_FIELDS = {
    "quiz": {"slug", "title_en", "title_fr", "pass_mark", "guide_paths", "questions-0-position"},
    "question": {
        "prompt_en",
        "kind",
        "choices-0-text_fr",
        "gaps",
        "choices-0-gap",
        "choices-TOTAL_FORMS",
        "units-TOTAL_FORMS",
    },
    "guide path": {"slug", "title_fr", "url"},
    "quiz list": {"q", "action", "_selected_action"},
}


@pytest.mark.parametrize("page", EDITOR_PAGES)
def test_every_editor_form_takes_every_edge_value(content, page):
    guide, quiz = content
    editor = Client(raise_request_exception=False)
    editor.force_login(make_staff("edge-editor", "Editors"))
    forms = forms_of(editor, EDITOR_PAGES[page](quiz, guide))
    assert EDITOR_FIELDS[page] <= {name for form in forms for name in form.names}
    _each_edge(editor, forms)


# What a gaps question reads by its kind's rules: its gaps' kinds, its prompt's gaps and
# each choice's gap and value. The question page above is a single-choice question's, walked
# whole; a gaps question's page is walked on these fields.
GAPS_FIELDS = {
    "kind",
    "gaps",
    "prompt_en",
    "prompt_fr",
    "choices-0-gap",
    "choices-0-text_en",
    "choices-0-is_correct",
}


def test_a_gaps_question_s_fields_take_every_edge_value(content):
    _guide, quiz = content
    question = make_gaps(quiz, 2)
    editor = Client(raise_request_exception=False)
    editor.force_login(make_staff("edge-editor", "Editors"))
    forms = forms_of(editor, reverse("admin:quizzes_question_change", args=[question.pk]))
    assert GAPS_FIELDS <= {name for form in forms for name in form.names}
    _each_edge(editor, forms, only=GAPS_FIELDS)


def test_every_admin_search_is_bounded():
    searched = [model_admin for model_admin in site._registry.values() if model_admin.search_fields]
    assert searched
    assert all(isinstance(model_admin, BoundedSearchMixin) for model_admin in searched)


@pytest.mark.django_db
def test_ids_out_of_a_columns_range_match_nothing_in_an_in_lookup(content):
    _guide, quiz = content
    huge, negative = 2**63, -(2**63) - 1
    assert not Question.objects.filter(pk__in=[huge, negative]).exists()
    assert not Question.objects.filter(quiz__in=[huge]).exists()
    assert Question.objects.filter(quiz__in=[huge, quiz.pk]).count() == 2
    assert Quiz.objects.filter(guide_paths__in=[str(huge)]).count() == 0
    assert Question.objects.filter(position__in=[-1, 1]).count() == 1


# A quiz file's every field, each given every value of YAML_EDGES, raw as the file holds it.
QUIZ_FILE = {
    "slug": "edge",
    "title": {"en": "Edge", "fr": "Bord"},
    "description": {"en": "A quiz."},
    "level": "beginner",
    "pass_mark": 60,
    "shuffle_choices": False,
    "is_published": True,
    "guide_paths": ["data-parallelism"],
    "questions": [
        {
            "position": 1,
            "kind": "single",
            "prompt": {"en": "Which?", "fr": "Laquelle ?"},
            "explanation": {"en": "Because."},
            "guide_url": {"en": "https://example.com/guide#part"},
            "choices": [
                {"position": 1, "text": {"en": "This"}, "correct": True, "feedback": {"en": "Yes"}},
                {"position": 2, "text": {"en": "That"}, "correct": False},
            ],
        },
        {
            "position": 2,
            "kind": "gaps",
            "prompt": {"en": "A [[1]] sums."},
            "gaps": ["short_answer"],
            "choices": [{"gap": 1, "text": {"en": "all-reduce"}, "correct": True}],
        },
    ],
}
YAML_EDGES = [
    "null",
    "''",
    "[]",
    "{}",
    "true",
    "-1",
    "9223372036854775808",
    "9" * 5000,
    "1e999",
    ".nan",
    "9999-12-31",
    '"a\\0b"',
    '"\\ud800"',
    '"' + "x" * 100_000 + '"',
    "[" * 900 + "]" * 900,
]


def _paths(value, path=()):
    """Every place in a quiz-file dict that holds a value, the dict itself excepted."""
    if path:
        yield path
    if isinstance(value, dict | list):
        for key, inner in value.items() if isinstance(value, dict) else enumerate(value):
            yield from _paths(inner, (*path, key))


def _file_with(path: tuple, edge: str) -> bytes:
    data = copy.deepcopy(QUIZ_FILE)
    inner = data
    for key in path[:-1]:
        inner = inner[key]
    inner[path[-1]] = "EDGE-VALUE"
    return yaml.safe_dump(data).replace("EDGE-VALUE", edge).encode()


def test_every_field_of_a_quiz_file_takes_every_edge_value(content):
    failures, applied = [], 0
    paths = list(_paths(QUIZ_FILE))
    assert ("questions", 0, "choices", 1, "correct") in paths
    assert {("questions", 1, "gaps", 0), ("questions", 1, "choices", 0, "gap")} <= set(paths)
    for path in paths:
        for edge in YAML_EDGES:
            before = _recorded()
            try:
                plan = import_plan(content=_file_with(path, edge), name="edge.yaml")
                if plan.can_apply:
                    import_apply(plan=plan)
                    applied += 1
                else:
                    assert all(place or message for place, message in plan.errors)
            except QuizFileError:
                pass
            except Exception as error:  # What the admin would have shown as a 500.
                failures.append((path, edge[:20], repr(error)[:100]))
                continue
            if not plan.can_apply and _recorded() != before:
                failures.append((path, edge[:20], "refused, yet written"))
    assert not failures, "\n".join(map(repr, failures))
    assert applied  # Some edges are good values somewhere (an empty description).
