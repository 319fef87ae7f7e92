"""Fixtures shared by the tests; the data they make comes from tests/factories.py."""

import pytest
from django.utils import translation

from guides.models import GuidePath
from quizzes.models import Quiz
from tests.factories import make_guide, make_quiz, make_staff

# The hand-computed score report data set and its fixtures (hand_quiz, instructor_client).
pytest_plugins = ["tests.reports.report_data"]


@pytest.fixture
def guide(db) -> GuidePath:
    return make_guide()


@pytest.fixture
def quiz(guide) -> Quiz:
    return make_quiz(guide=guide)


def pytest_report_header(config) -> str:
    from django.conf import settings

    return f"database: {settings.DATABASES['default']['ENGINE']}"


@pytest.fixture(autouse=True)
def default_language():
    """Each test starts in the default language, whatever ran before it in this thread: a
    request in French leaves French active after the response (LocaleMiddleware activates it
    and nothing turns it off), and so does a test's `translation.activate`."""
    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    """Uploaded images go to a directory of the test's own, never var/media; so do the
    import files kept for a confirmation, never var/private."""
    settings.MEDIA_ROOT = tmp_path / "media"
    private = settings.STORAGES["private"] | {"OPTIONS": {"location": tmp_path / "private"}}
    settings.STORAGES = settings.STORAGES | {"private": private}
    return settings.MEDIA_ROOT


@pytest.fixture
def editor(db):
    return make_staff("editor", "Editors")


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client


@pytest.fixture
def instructor_client(client, db):
    client.force_login(make_staff("instructor", "Instructors"))
    return client
