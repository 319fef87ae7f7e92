"""gunicorn's settings for Quizsite: `gunicorn --config gunicorn.conf.py quizsite.wsgi`."""

import multiprocessing
import os

# Where the proxy in front reaches it (GUNICORN_BIND: `make serve` gives a unix socket under
# var/), else HOST:PORT (the compose file's web service, on its private network).
bind = os.environ.get("GUNICORN_BIND") or (
    f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
)
# Sync workers, each with one database connection from its pool: a request spends most of
# its time in Python, so one worker per core plus one to cover waits on the database.
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() + 1))
timeout = 30
graceful_timeout = 20
keepalive = 5
# Heartbeats in memory, not on a disk that may stall (Docker's overlay filesystem).
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
accesslog = "-"
errorlog = "-"
# The workers' standard output and error (Django's log, tracebacks included) go to errorlog
# too: with --daemon or --error-logfile (make serve) they would otherwise be lost.
capture_output = True
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms'


def on_starting(server) -> None:
    """Read the settings once before any worker boots: a bad one is one line, not a traceback."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quizsite.settings")
    from django.conf import settings

    from quizsite.startup import errors_in_one_line

    with errors_in_one_line("gunicorn"):
        settings.DATABASES  # noqa: B018 (reading it is the check)
