"""Fixtures of the classes' tests: an instructor with a class, learners to join it."""

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from quizzes.classes.services import class_create, class_join
from quizzes.models import Class
from tests.factories import make_staff


@pytest.fixture
def instructor(db) -> User:
    return make_staff("teacher", "Instructors")


@pytest.fixture
def klass(instructor) -> Class:
    return class_create(name="Data parallelism, spring", instructor=instructor)


@pytest.fixture
def teacher(client, instructor) -> Client:
    """The class's instructor, signed in."""
    client.force_login(instructor)
    return client


def make_learner(name: str) -> User:
    return User.objects.create_user(name, password="not-used")


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def make_class_of(instructor: User, *, learners: int, name: str = "A class") -> Class:
    klass = class_create(name=name, instructor=instructor)
    for n in range(learners):
        class_join(klass=klass, learner=make_learner(f"{name}-learner-{n}"))
    return klass


def rule_changes_shown(page: str) -> list[tuple[str, ...]]:
    """The rows of a page's "Changes to the rules" table, each its cells' text but the date."""
    rows = re.findall(r'<tr class="change-row">(.*?)</tr>', page, re.DOTALL)
    return [
        tuple(
            re.sub(r"<[^>]+>", "", cell).strip()
            for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL)
        )[1:]
        for row in rows
    ]
