"""Quizsite settings: one file, every difference between machines comes from the environment."""

import os
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
import django
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


def env_str(name: str, default: str) -> str:
    value = os.environ.get(name)
    return default if value is None else value.strip()


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
# Scripts, styles and images from the site itself only: no inline script or style anywhere,
# the admin's included; no plugins, no <base>, no framing, forms post to the site.
CONTENT_SECURITY_POLICY_DIRECTIVES = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "frame-ancestors": ["'none'"],
    "form-action": ["'self'"],
}
# Browser features the site never uses, off for it and anything it embeds.
PERMISSIONS_POLICY = [
    "accelerometer",
    "autoplay",
    "browsing-topics",
    "camera",
    "display-capture",
    "geolocation",
    "gyroscope",
    "magnetometer",
    "microphone",
    "midi",
    "payment",
    "publickey-credentials-get",
    "serial",
    "usb",
    "xr-spatial-tracking",
]

INSTALLED_APPS = [
    "modeltranslation",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "adminsortable2",
    "axes",
    "quizsite",
    "guides",
    "quizzes",
    "quizzes.markup",
    "quizzes.learning",
    "quizzes.reports",
    "quizzes.interchange",
    "quizzes.classes",
    "quizzes.lti",
    "quizzes.embed",
    # Background tasks (the admin's large imports): Django 6's framework, or its backport on
    # Django 5.2, with the database backend; `manage.py db_worker` runs them.
    *(["django_tasks"] if django.VERSION < (6, 0) else []),
    "django_tasks_db",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Django 6 sends the Content-Security-Policy itself; django-csp does it on Django 5.2.
    "django.middleware.csp.ContentSecurityPolicyMiddleware"
    if django.VERSION >= (6, 0)
    else "csp.middleware.CSPMiddleware",
    "quizsite.middleware.PermissionsPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "quizsite.middleware.BodyLimitMiddleware",
    "quizsite.middleware.DatabaseUnavailableMiddleware",
    # An LTI session's pages in its LMS's iframe (between the CSP and the session: it reads
    # the session and changes the policy and the session's cookie).
    "quizzes.lti.middleware.LtiFrameMiddleware",
    # The embed pages (/<lang>/embed/…) in a guide's frame: their URLconf, the sites allowed
    # to frame them, their cookies (quizzes/embed/middleware.py).
    "quizzes.embed.middleware.EmbedFrameMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "quizsite.middleware.UnreadableBodyMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",
]

if django.VERSION >= (6, 0):
    SECURE_CSP = CONTENT_SECURITY_POLICY_DIRECTIVES
else:
    CONTENT_SECURITY_POLICY = {"DIRECTIVES": CONTENT_SECURITY_POLICY_DIRECTIVES}

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
                "quizzes.learning.context_processors.learner",
            ],
        },
    },
]

WSGI_APPLICATION = "quizsite.wsgi.application"


def database_from_url(url: str, *, name: str = "DATABASE_URL", connect_timeout: int = 3) -> dict:
    """PostgreSQL through Django's psycopg pool (or persistent connections); SQLite for a laptop.

    `name` is the variable the URL came from, for the error message; `connect_timeout` the
    seconds a connection waits for the server (libpq takes 2 at the least), unless the URL
    gives its own (`?connect_timeout=`).
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
        # A server that does not answer is given up on: at connection in 3 s (2 s for the
        # reports' replica, which the reports can do without), and on an open
        # connection when TCP keepalives (idle 10 s, then 3 probes 2 s apart) or unacknowledged
        # data (5 s) say the other end is gone, instead of the system's quarter of an hour.
        options = database.setdefault("OPTIONS", {})
        options.setdefault("connect_timeout", connect_timeout)
        options.setdefault("keepalives", 1)
        options.setdefault("keepalives_idle", 10)
        options.setdefault("keepalives_interval", 2)
        options.setdefault("keepalives_count", 3)
        options.setdefault("tcp_user_timeout", 5000)
        if env_bool("DATABASE_POOL", True):
            # Django's pool replaces CONN_MAX_AGE; with health checks on, it tests a connection
            # before lending it, so one dropped by a restarted server is replaced instead of
            # failing a request: only one that has been idle, on our backend
            # (quizsite/postgresql/base.py).
            database["ENGINE"] = "quizsite.postgresql"
            database["CONN_MAX_AGE"] = 0
            database["CONN_HEALTH_CHECKS"] = True
            options["pool"] = {
                "min_size": 1,
                "max_size": env_int("DATABASE_POOL_MAX_SIZE", 4),
                # How long a request waits for a connection, then 503: a sync worker serves one
                # request at a time, so while the database is up one is always ready.
                "timeout": 0.5,
                # The pool gives up reconnecting in the background after a second, instead of
                # backing off for minutes; the next request asks for a connection again.
                "reconnect_timeout": 1,
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
# default database itself (MIRROR), as replication would make it. A replica that can't be
# reached, or is more than REPORTS_MAX_LAG_SECONDS behind, leaves the reports to the primary
# (quizsite/replica.py).
if reports_url := os.environ.get("REPORTS_DATABASE_URL"):
    DATABASES["reports"] = database_from_url(
        reports_url, name="REPORTS_DATABASE_URL", connect_timeout=2
    )
    DATABASES["reports"]["TEST"] = {"MIRROR": "default"}
    DATABASE_ROUTERS = ["quizsite.routers.ReportsRouter"]

REPORTS_MAX_LAG_SECONDS = env_int("REPORTS_MAX_LAG_SECONDS", 60)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Each process keeps rendered fragments and parts of quiz content in memory (templates/
# quizzes/_answer_review.html, _choice_inputs.html, the learner pages' kept parts): their
# keys carry the quiz's updated_at, so an edit is seen at once and nothing needs sharing
# between processes or hosts. With REDIS_URL, every process and host shares them in Redis
# instead, and the rate limits count there (quizsite/sharedcache.py: a Redis down is a miss,
# and the counts fall back to the database's). Whole pages, kept by address, stay in a small
# cache of each process's own: a visitor can vary an address (the Host header's port)
# without end, and then only churns that one.
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL and urlsplit(REDIS_URL).scheme not in ("redis", "rediss", "unix"):
    raise ImproperlyConfigured(
        "REDIS_URL must look like redis://HOST:PORT/0 (or rediss://, unix://)."
    )
CACHES = {
    "default": {
        "BACKEND": "quizsite.sharedcache.ForgivingRedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "quizsite",
    }
    if REDIS_URL
    else {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "OPTIONS": {"MAX_ENTRIES": 10_000},
    },
    "pages": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "pages",
        "OPTIONS": {"MAX_ENTRIES": 300},
    },
}

# Each process also keeps the content of this many quizzes, read-only, under their stamps
# (quizzes/snapshots.py): the least recently used goes first.
QUIZ_CONTENT_CACHE_SIZE = env_int("QUIZ_CONTENT_CACHE_SIZE", 200)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Sign-in is throttled (quizsite/signin.py, django-axes): failures are counted per username and
# per client address, in the database, so every worker and host shares them; after
# AXES_FAILURE_LIMIT failures within AXES_COOLOFF_MINUTES, that username (from anywhere) and
# that address (for any username) get a 429 page until the cool-off has passed since the last
# failure. Per username stops guessing one account's password from many addresses; per
# address stops one client spraying a password over many accounts, and limits it to locking
# out one account per cool-off. Unlock: `manage.py axes_reset_username NAME` or
# `axes_reset_ip ADDRESS`.
AUTHENTICATION_BACKENDS = ["quizsite.signin.ThrottledModelBackend"]
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", 15))
if AXES_FAILURE_LIMIT < 1 or AXES_COOLOFF_TIME <= timedelta(0):
    raise ImproperlyConfigured("AXES_FAILURE_LIMIT and AXES_COOLOFF_MINUTES must be at least 1.")
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_LOCKOUT_PARAMETERS = [["username"], ["ip_address"]]
AXES_LOCKOUT_CALLABLE = "quizsite.signin.lockout_response"
AXES_CLIENT_IP_CALLABLE = "quizsite.clientip.client_ip"
AXES_VERBOSE = False  # its start-up banner would break one-line errors; lockouts still log
# The client address is REMOTE_ADDR; behind N proxies that each append to X-Forwarded-For,
# TRUSTED_PROXY_COUNT=N reads it from there (quizsite/clientip.py). Never trusted otherwise.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)
# Sign-ups per address and hour (quizzes/learning/views/accounts.py).
SIGNUP_LIMIT_PER_HOUR = env_int("SIGNUP_LIMIT_PER_HOUR", 20)
# Password reset emails asked for per address and hour (quizzes/learning/urls.py), and sent
# to one account a day, whoever asks (quizzes/learning/forms.py).
PASSWORD_RESET_LIMIT_PER_HOUR = env_int("PASSWORD_RESET_LIMIT_PER_HOUR", 10)
PASSWORD_RESET_EMAILS_PER_ACCOUNT_PER_DAY = env_int("PASSWORD_RESET_EMAILS_PER_ACCOUNT_PER_DAY", 3)
# Attempts started (Start, Start over, practice) per learner, and per client address, an hour.
ATTEMPT_STARTS_PER_LEARNER_PER_HOUR = env_int("ATTEMPT_STARTS_PER_LEARNER_PER_HOUR", 60)
ATTEMPT_STARTS_PER_ADDRESS_PER_HOUR = env_int("ATTEMPT_STARTS_PER_ADDRESS_PER_HOUR", 1200)
# Class codes typed (quizzes/classes/views.py) per account, and per client address, an hour:
# a code is short enough to read aloud, so it could be guessed but for these.
CLASS_CODES_PER_ACCOUNT_PER_HOUR = env_int("CLASS_CODES_PER_ACCOUNT_PER_HOUR", 20)
CLASS_CODES_PER_ADDRESS_PER_HOUR = env_int("CLASS_CODES_PER_ADDRESS_PER_HOUR", 200)
# Tries at the account deletion's password, per account and hour.
ACCOUNT_DELETE_LIMIT_PER_HOUR = env_int("ACCOUNT_DELETE_LIMIT_PER_HOUR", 5)
# The site's own address, for the links of its emails: never the Host of the request that
# asked for one, which the client chooses (ALLOWED_HOSTS checks its name, not its port).
SITE_URL = env_str(
    "SITE_URL",
    "http://127.0.0.1:8000"
    if DEBUG
    else f"{'https' if HTTPS else 'http'}://{(ALLOWED_HOSTS or ['localhost'])[0].lstrip('.')}",
).rstrip("/")
if urlsplit(SITE_URL).scheme not in ("http", "https") or not urlsplit(SITE_URL).netloc:
    raise ImproperlyConfigured("SITE_URL must be the site's address, as https://quiz.example.com.")
# Password reset emails: printed to standard error unless EMAIL_HOST names an SMTP server.
EMAIL_HOST = env_str("EMAIL_HOST", "")
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "webmaster@localhost")
if EMAIL_HOST_USER and not EMAIL_HOST_PASSWORD:
    raise ImproperlyConfigured("EMAIL_HOST_USER is set: EMAIL_HOST_PASSWORD must be set too.")
if EMAIL_HOST and not DEBUG and DEFAULT_FROM_EMAIL == "webmaster@localhost":
    raise ImproperlyConfigured("EMAIL_HOST is set: set DEFAULT_FROM_EMAIL to the sender's address.")

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
# English dates as quizsite/formats/en/formats.py writes them; French as Django does.
FORMAT_MODULE_PATH = ["quizsite.formats"]
TIME_ZONE = "UTC"
# Reports read the counts that PostgreSQL's triggers keep (quizzes/reports/rollups.py) rather
# than scanning the attempts; False scans them (the tests compare the two).
REPORT_ROLLUPS = True
USE_TZ = True

MODELTRANSLATION_DEFAULT_LANGUAGE = "en"
MODELTRANSLATION_FALLBACK_LANGUAGES = ("en",)

STATIC_URL = "static/"
# Where collectstatic writes; STATIC_ROOT chooses another folder (a test's own, for one).
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "var" / "static"))
# Production serves hashed, compressed copies made by `manage.py collectstatic` (WhiteNoise);
# DEBUG serves the files as they are, without collectstatic.
# "private" holds what no URL serves: the import files kept between the admin's preview and
# its confirmation (quizzes.interchange.uploads), under PRIVATE_ROOT.
PRIVATE_ROOT = Path(os.environ.get("PRIVATE_ROOT", BASE_DIR / "var" / "private"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "private": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": PRIVATE_ROOT, "base_url": None},
    },
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Images editors upload for quiz texts (quizzes.markup.images), through Django's storage API: files
# under var/media here, an S3-compatible store with django-storages elsewhere
# (docs/deployment.md). SERVE_MEDIA lets this process serve them, as `make run`, `make serve`
# and the Docker image do: fine for a small site; a bigger one serves MEDIA_ROOT from its proxy
# or a bucket and turns it off.
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", BASE_DIR / "var" / "media"))
SERVE_MEDIA = env_bool("SERVE_MEDIA", True)
CONTENT_IMAGE_MAX_BYTES = int(os.environ.get("CONTENT_IMAGE_MAX_BYTES", 2 * 1024 * 1024))

# The largest request body each part of the site takes, by path prefix (the longest that
# matches counts): a larger one is refused with a 413 before any of it is read, by the proxy
# in front (`manage.py proxy_config` writes these into its configuration) and by Django
# itself, for a site run without it (quizsite.middleware.BodyLimitMiddleware). Learner and
# instructor pages post short forms; the admin's forms a content image; its import page a
# quiz file (quizzes.interchange's MAX_UPLOAD_BYTES, 50 MB), each with room for the form.
REQUEST_BODY_LIMITS = {
    "/": env_int("REQUEST_BODY_MAX_BYTES", 256 * 1024),
    "/admin/": max(CONTENT_IMAGE_MAX_BYTES, 2_621_440) + 1024 * 1024,
    "/admin/quizzes/quiz/import/": 51 * 1024 * 1024,
}
# Django's own limits behind it: the text fields of one request (a quiz's admin form is the
# largest), and the size up to which an uploaded file stays in memory (a content image);
# a larger one (an import) goes to a temporary file, removed when the request ends.
DATA_UPLOAD_MAX_MEMORY_SIZE = REQUEST_BODY_LIMITS["/admin/"]
FILE_UPLOAD_MAX_MEMORY_SIZE = CONTENT_IMAGE_MAX_BYTES + 64 * 1024

# Everything to standard error, where gunicorn (capture_output), Docker and systemd collect it;
# a request's error says its method and path, and its traceback follows.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "request": {
            "()": "quizsite.log.RequestFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s%(request_line)s %(message)s",
        }
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "request"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

# The admin's imports of a file of over IMPORT_BACKGROUND_BYTES of text (a zip's entries
# together) are planned and written by the task worker (`manage.py db_worker`), the admin
# following them on a page of their own: a 5,000-question bank takes longer to check than a
# web worker may spend on a request (gunicorn.conf.py). Smaller files stay in the request.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
IMPORT_BACKGROUND_BYTES = int(os.environ.get("IMPORT_BACKGROUND_BYTES", 256 * 1024))
# An instructor may have a report's attempts.csv written by the task worker (a file of their
# own, kept EXPORT_KEEP_SECONDS): at 100,000 attempts it takes about 10 s to stream, and a
# million would outlast gunicorn's timeout. A running export whose task wrote no progress for
# EXPORT_STALE_SECONDS lost its worker (killed, or its machine): it shows as failed, to retry.
EXPORT_KEEP_SECONDS = env_int("EXPORT_KEEP_SECONDS", 24 * 3600)
EXPORT_STALE_SECONDS = env_int("EXPORT_STALE_SECONDS", 120)
