"""Quizsite settings: one file, every difference between machines comes from the environment."""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in {"1", "true", "yes", "on"}:
        return True
    if value.lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true or false), not {value!r}.")


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}.") from None


DEBUG = env_bool("DEBUG", True)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = "insecure-development-key-never-used-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# HTTPS: the site is reached over https://, directly or through a proxy that terminates TLS.
# Then cookies are sent over HTTPS only and browsers are told to come back over HTTPS (HSTS).
HTTPS = env_bool("HTTPS", not DEBUG)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000) if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_PRELOAD = SECURE_HSTS_SECONDS > 0
# Off behind a proxy that redirects http:// itself; that proxy then sets X-Forwarded-Proto.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", HTTPS)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # load balancers probe over plain HTTP
if env_bool("TRUST_X_FORWARDED_PROTO", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

INSTALLED_APPS = [
    "modeltranslation",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "quizsite",
    "guides",
    "quizzes",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "quizsite.middleware.DatabaseUnavailableMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "quizsite.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "quizsite.context_processors.languages",
            ],
        },
    },
]

WSGI_APPLICATION = "quizsite.wsgi.application"


def database_from_url(url: str, *, name: str = "DATABASE_URL") -> dict:
    """PostgreSQL through Django's psycopg pool (or persistent connections); SQLite for a laptop.

    `name` is the variable the URL came from, for the error message.
    """
    if "://" not in url:
        raise ImproperlyConfigured(
            f"{name} can't be parsed: it must look like postgres://user:password@host:port/name"
        )
    try:
        database = dj_database_url.parse(url)
    except ValueError as error:
        raise ImproperlyConfigured(f"{name} can't be parsed: {error}") from None
    if database["ENGINE"] == "django.db.backends.postgresql":
        database.setdefault("OPTIONS", {}).setdefault("connect_timeout", 5)
        if env_bool("DATABASE_POOL", True):
            # Django's pool replaces CONN_MAX_AGE; with health checks on, it tests a connection
            # before lending it, so one dropped by a restarted server is replaced instead of
            # failing a request.
            database["CONN_MAX_AGE"] = 0
            database["CONN_HEALTH_CHECKS"] = True
            database["OPTIONS"]["pool"] = {
                "min_size": 1,
                "max_size": env_int("DATABASE_POOL_MAX_SIZE", 4),
                "timeout": 3,  # how long a request waits for a connection: then 503
            }
        else:
            database["CONN_MAX_AGE"] = 600
            database["CONN_HEALTH_CHECKS"] = True
    elif database["ENGINE"] == "django.db.backends.sqlite3":
        # WAL lets readers go on while one writer writes; IMMEDIATE takes the write lock when a
        # transaction starts, so concurrent answers wait their turn (up to `timeout` seconds)
        # instead of failing with "database is locked" when a read lock can't be upgraded.
        database["CONN_MAX_AGE"] = 600
        database.setdefault("OPTIONS", {}).update(
            transaction_mode="IMMEDIATE", timeout=20, init_command="PRAGMA journal_mode=WAL;"
        )
    return database


# PostgreSQL in production (postgres://user:password@host:port/name); SQLite when unset.
DATABASES = {
    "default": database_from_url(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'var' / 'db.sqlite3'}"
    )
}

# A read replica of it for the instructors' reports, which aggregate over every answer; the
# router sends only the report views' reads there (quizsite/routers.py). Under test it is the
# default database itself (MIRROR), as replication would make it.
if reports_url := os.environ.get("REPORTS_DATABASE_URL"):
    DATABASES["reports"] = database_from_url(reports_url, name="REPORTS_DATABASE_URL")
    DATABASES["reports"]["TEST"] = {"MIRROR": "default"}
    DATABASE_ROUTERS = ["quizsite.routers.ReportsRouter"]

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Each process keeps rendered fragments of quiz content in memory (templates/quizzes/
# _answer_review.html, _choice_inputs.html): their keys carry the quiz's updated_at, so an
# edit is seen at once and nothing needs sharing between processes or hosts.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "OPTIONS": {"MAX_ENTRIES": 10_000},
    }
}

# Each process also keeps the content of this many quizzes, read-only, under their stamps
# (quizzes/content.py): the least recently used goes first.
QUIZ_CONTENT_CACHE_SIZE = env_int("QUIZ_CONTENT_CACHE_SIZE", 200)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# A third language needs an entry here and a locale/<code>/LC_MESSAGES/django.po.
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("fr", _("French")),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

MODELTRANSLATION_DEFAULT_LANGUAGE = "en"
MODELTRANSLATION_FALLBACK_LANGUAGES = ("en",)

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "var" / "static"
# Production serves hashed, compressed copies made by `manage.py collectstatic` (WhiteNoise);
# DEBUG serves the files as they are, without collectstatic.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Images editors upload for quiz texts (quizzes.images), through Django's storage API: files
# under var/media here, an S3-compatible store with django-storages elsewhere
# (docs/deployment.md). SERVE_MEDIA lets this process serve them, as `make run`, `make serve`
# and the Docker image do: fine for a small site; a bigger one serves MEDIA_ROOT from its proxy
# or a bucket and turns it off.
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", BASE_DIR / "var" / "media"))
SERVE_MEDIA = env_bool("SERVE_MEDIA", True)
CONTENT_IMAGE_MAX_BYTES = int(os.environ.get("CONTENT_IMAGE_MAX_BYTES", 2 * 1024 * 1024))

# Everything to stdout/stderr, where gunicorn, Docker and systemd collect it.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

# The admin's language tabs need jQuery UI: served from here, not from a CDN.
JQUERY_UI_URL = "vendor/jquery-ui/jquery-ui.min.js"
