"""Start-up failures a person can act on, said in one line instead of a traceback."""

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from django.core.exceptions import ImproperlyConfigured
from django.db import InterfaceError, OperationalError


@contextmanager
def errors_in_one_line(program: str) -> Iterator[None]:
    try:
        yield
    except ImproperlyConfigured as error:
        _exit(program, f"configuration error: {error}")
    except (OperationalError, InterfaceError) as error:
        _exit(program, f"database error: {error}")


def _exit(program: str, message: str) -> None:
    print(f"{program}: {' '.join(message.split())}", file=sys.stderr)
    raise SystemExit(1)
