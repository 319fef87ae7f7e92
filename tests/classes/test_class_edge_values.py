"""Every field of every form of classes, sent each edge value: never a 5xx, and a refused
request changes nothing.

As tests/quizsite/test_edge_values.py does for the rest of the site (whose edge values and
page reader this reuses): the forms are read from the pages an instructor and a learner see
(making a class, joining, the roster, assigning, an assignment's rules and overrides, and
whatever form those pages grow), each field given every edge value in turn, the other fields
as the page filled them. Besides the site's edge values: dates of year 0, 10000 and the
largest one, the bounds the forms keep, ids of another class's learner and of quizzes and
guide paths that can't be assigned; and each form sent with every field twice and as JSON.
"State" is every column of every row of the models classes write, not only their counts: a
rule changed by a refused request would show.
"""

import json
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from quizzes.classes.services import class_create, class_join
from quizzes.models import (
    Assignment,
    AssignmentChange,
    Attempt,
    Class,
    Membership,
    Override,
)
from tests.factories import make_guide, make_quiz, make_staff, take_assignment
from tests.quizsite.test_edge_values import EDGES, Form, _send, forms_of

WRITTEN = (Class, Membership, Assignment, Override, AssignmentChange, Attempt)
DATES = [
    "0000-01-01T00:00",  # Year 0.
    "10000-01-01T00:00",  # Year 10000.
    "9999-12-31T23:59",  # The largest datetime-local.
    "0001-01-01T00:00",
    "1999-12-31T23:59",  # Just before the forms' first year.
    "2100-12-31T23:59",  # Their last minute.
    "2101-01-01T00:00",
    "2030-02-30T10:00",  # No such day.
    "2030-06-01T25:00",
    "2030-06-01 10:00:00+14:00",  # An offset the widget never sends.
]
NUMBERS = ["0", "-0", "1.5", "1e3", " 7 ", "٣", "10080", "10081", "100", "101"]


def _state() -> dict[str, list[tuple]]:
    return {model.__name__: list(model.objects.order_by("pk").values_list()) for model in WRITTEN}


def _outcome(client: Client, form: Form, fields: list[tuple[str, str]], *, raw: bool = False):
    """Sends the form, returns (status, whether anything changed)."""
    before = _state()
    if raw:  # JSON, which the forms don't read: their fields come out missing.
        path = urlsplit(form.action).path
        response = client.post(path, json.dumps(dict(fields)), content_type="application/json")
    else:
        response = _send(client, form, fields)
    return response.status_code, _state() != before


def _walk(client: Client, forms: list[Form], extra: dict[str, list[str]]) -> list[tuple]:
    """Every field of the forms given each edge value (and the field's own extras); then each
    form with every field twice (the page's value, then an edge) and as JSON."""
    failures = []
    for form in forms:
        for name in form.names:
            for edge in EDGES + DATES + NUMBERS + extra.get(name, []):
                fields = [(n, edge if n == name else value) for n, value in form.fields]
                fields = [(n, value) for n, value in fields if value is not None]
                status, changed = _outcome(client, form, fields)
                if status >= 500 or (status >= 400 and changed):
                    failures.append((form.action, name, edge[:24], status, changed))
        doubled = [
            pair
            for n, value in form.fields
            if value is not None
            for pair in ((n, value), (n, "\ud800"))
        ]
        for fields, raw in ((doubled, False), (form.fields, True)):
            present = [(n, value) for n, value in fields if value is not None]
            status, changed = _outcome(client, form, present, raw=raw)
            if status >= 500 or (status >= 400 and changed):
                failures.append((form.action, "twice" if not raw else "JSON", status, changed))
    return failures


@pytest.fixture
def world(db):
    """An instructor's class with Ada in it, an assignment she has an attempt at and an
    override for, and one nobody started; another instructor's class with Eve; a quiz and a
    guide path that can't be assigned."""
    teacher = make_staff("edge-teacher", "Instructors")
    klass = class_create(name="Edge class", instructor=teacher)
    ada = User.objects.create_user("ada", password="not-used")
    class_join(klass=klass, learner=ada)
    quiz = make_quiz(slug="assigned", questions=2, guide=make_guide())
    assignment = Assignment.objects.create(
        klass=klass,
        quiz=quiz,
        time_limit=timedelta(minutes=30),
        attempt_limit=2,
        closes_at=timezone.now() + timedelta(days=7),
    )
    take_assignment(assignment, ada, right=1, started=timezone.now(), finished=timezone.now())
    Override.objects.create(assignment=assignment, learner=ada, extra_attempts=1)
    other = class_create(name="Other class", instructor=make_staff("other", "Instructors"))
    eve = User.objects.create_user("eve", password="not-used")
    class_join(klass=other, learner=eve)
    hidden = make_quiz(slug="hidden", questions=1, published=False)
    empty = make_guide(slug="empty-path")  # Published, with no published quiz.
    Assignment.objects.create(klass=other, quiz=quiz)
    unstarted = Assignment.objects.create(klass=klass, quiz=make_quiz(slug="unstarted"))
    return {
        "unstarted": unstarted,
        "teacher": teacher,
        "class": klass,
        "assignment": assignment,
        "other": other,
        "eve": eve,
        "ada": ada,
        "foreign": {
            "learner": [str(eve.pk), str(teacher.pk), "0", "-1"],
            "target": [
                f"quiz:{hidden.pk}",
                f"guide:{empty.pk}",
                f"quiz:{quiz.pk}:1",
                "quiz:",
                "guide:-1",
                f"class:{klass.pk}",
                f"quiz:{'9' * 30}",
            ],
            "joining": ["OPEN", "true", "1"],
            "grading": ["HIGHEST", "median"],
            "review": ["after_close ", "always"],
        },
    }


def test_every_instructor_form_of_classes_takes_every_edge_value(world):
    klass, assignment = world["class"], world["assignment"]
    instructor = Client(raise_request_exception=False)
    instructor.force_login(world["teacher"])
    pages = [
        reverse("classes"),
        klass.get_absolute_url(),
        reverse("assignment_new", args=[klass.pk]),
        reverse("assignment_detail", args=[klass.pk, assignment.pk]),
        reverse("class_remove", args=[klass.pk, assignment.klass.memberships.get().learner_id]),
        reverse("assignment_delete", args=[klass.pk, world["unstarted"].pk]),
    ]
    forms = [form for page in pages for form in forms_of(instructor, page)]
    # The lists start at "—": picked as a person would, so that the other fields are read.
    picked = {"target": f"quiz:{assignment.quiz_id}", "learner": str(world["ada"].pk)}
    for form in forms:
        form.fields = [
            (n, picked.get(n, value) if value == "" else value) for n, value in form.fields
        ]
    names = {name for form in forms for name in form.names}
    rules = {"opens_at", "closes_at", "time_limit", "attempt_limit", "grading", "review"}
    assert {"name", "joining", "target", "learner", "extra_time", "extra_attempts"} | rules <= names
    actions = {urlsplit(form.action).path for form in forms}
    assert reverse("assignment_delete", args=[klass.pk, world["unstarted"].pk]) in actions
    assert reverse("override_remove", args=[klass.pk, assignment.pk, world["ada"].pk]) in actions
    assert _walk(instructor, forms, world["foreign"]) == []
    # The foreign class's learner and assignment are as they were.
    assert not Override.objects.filter(learner=world["eve"]).exists()
    assert world["other"].assignments.count() == 1


def test_every_learner_form_of_classes_takes_every_edge_value(world):
    klass = world["class"]
    learner = Client(raise_request_exception=False)
    learner.force_login(User.objects.create_user("newcomer", password="not-used"))
    forms = forms_of(learner, reverse("class_join")) + forms_of(learner, klass.join_url())
    assert "code" in {name for form in forms for name in form.names}
    codes = {"code": [world["other"].code, klass.code.lower(), klass.code + "X", "K7QX-29M"]}
    assert _walk(learner, forms, codes) == []
