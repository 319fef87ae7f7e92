#!/usr/bin/env python
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quizsite.settings")
    # A command makes one connection and ends: the connection pool is for gunicorn's workers.
    os.environ.setdefault("DATABASE_POOL", "false")
    from django.core.management import execute_from_command_line

    from quizsite.startup import errors_in_one_line

    with errors_in_one_line("manage.py"):
        execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
